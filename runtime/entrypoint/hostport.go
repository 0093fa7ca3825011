package entrypoint

import (
	"fmt"
	"net"
	"strconv"
)

// ValidHostPort reports whether address is of the form HOST:PORT, as the
// processes' address options take it: HOST is not empty (an IPv6 host in
// brackets, [::1]:6123), and PORT is a number from 0 to 65535 (0: any
// free port). `flink` checks its options with it, and the entrypoints
// their Config.
func ValidHostPort(address string) bool {
	host, port, err := net.SplitHostPort(address)
	if err != nil || host == "" || port == "" {
		return false
	}
	_, err = strconv.ParseUint(port, 10, 16)
	return err == nil
}

// checkHostPort rejects an address that is not host:port.
func checkHostPort(option, address string) error {
	if !ValidHostPort(address) {
		return fmt.Errorf("%s: %q is not an address of the form HOST:PORT", option, address)
	}
	return nil
}
