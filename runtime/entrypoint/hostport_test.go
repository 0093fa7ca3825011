package entrypoint

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestValidHostPort(t *testing.T) {
	tests := []struct {
		address string
		want    bool
	}{
		{"localhost:6123", true},
		{"127.0.0.1:8081", true},
		{"localhost:0", true}, // any free port
		{"localhost:65535", true},
		{"[::1]:6123", true},
		{"[fe80::1%eth0]:6123", true},
		{"::1:6123", false}, // an IPv6 host needs its brackets
		{"[::1]", false},
		{"localhost", false},
		{"8081", false},
		{"localhost:", false},
		{":6123", false},
		{"[]:6123", false},
		{"localhost:65536", false},
		{"localhost:70000", false},
		{"localhost:-1", false},
		{"localhost:http", false}, // a port is a number, not a service name
		{"", false},
	}
	for _, tt := range tests {
		if got := ValidHostPort(tt.address); got != tt.want {
			t.Errorf("ValidHostPort(%q) = %v, want %v", tt.address, got, tt.want)
		}
	}
}

func TestCheckHostPortNamesTheOption(t *testing.T) {
	assert.NoError(t, checkHostPort("rest.address", "localhost:8081"))
	assert.EqualError(t, checkHostPort("rest.address", "localhost:70000"),
		`rest.address: "localhost:70000" is not an address of the form HOST:PORT`)
}
