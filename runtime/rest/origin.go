package rest

import (
	"fmt"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strings"
)

// ---------------------------------------------------------------------------
// Who may ask: flinklab's own endpoints answer only the endpoint's own
// pages and clients that are no browser (see "Who may ask" in the package
// documentation). Flink's endpoints answer anyone, as Flink's do.
// ---------------------------------------------------------------------------

// own wraps a handler of one of flinklab's own endpoints (/cluster/faults,
// /jobs/{jobid}/trace) with checkSameOrigin, before the handler runs.
func (s *Server) own(h handlerFunc) handlerFunc {
	return func(w http.ResponseWriter, r *http.Request) (any, error) {
		if err := s.checkSameOrigin(r); err != nil {
			s.log.Warn("Refused a request to one of flinklab's own endpoints.", "request", r.Method+" "+r.URL.Path,
				"host", r.Host, "origin", r.Header.Get("Origin"), "remote", r.RemoteAddr, "cause", err.Error())
			return nil, err
		}
		return h(w, r)
	}
}

// checkSameOrigin refuses a request that a web page of another site could
// have sent. Three checks, in this order:
//
//  1. Host must name this endpoint (403): an IP address, "localhost", the
//     host Config.Address names, or the machine's host name. This stops
//     DNS rebinding, where an attacker's name (evil.example) first leads
//     the browser to the attacker's server and then resolves to
//     127.0.0.1: the browser then sends "Host: evil.example:8081" to us,
//     and believes the answer is evil.example's to read. An IP address or
//     a name we were given cannot be the attacker's.
//  2. Origin, if the request has one, must be this endpoint too (403):
//     http://<the Host>, the same host and port the request was sent to,
//     as a browser sends it from a page of this endpoint. A page of any
//     other host, another IP address included, or of another port is
//     refused: a browser sends Origin with every cross-origin request and
//     every POST, so a form or fetch of another page is refused here;
//     curl and Go clients send no Origin and pass. "Origin: null" (a
//     sandboxed page, a file://) is refused.
//  3. A write (POST, PUT, PATCH, DELETE) with a body must send it as
//     application/json (415). A page may send text/plain,
//     multipart/form-data or a url-encoded form to any site without asking
//     first; application/json it may not, unless the site allows it in a
//     CORS preflight, which this endpoint never does.
func (s *Server) checkSameOrigin(r *http.Request) error {
	hostName, _ := splitHost(r.Host, "80")
	if !s.isOwnHostName(hostName) {
		return forbidden(fmt.Sprintf("The Host %q does not name this rest endpoint: flinklab's own endpoints answer only requests "+
			"sent to an IP address, localhost, this machine's name, or the host rest.address names.", r.Host))
	}
	if origin, sent := r.Header["Origin"]; sent {
		if !isOrigin(strings.Join(origin, ","), r.Host) {
			return forbidden(fmt.Sprintf("The Origin %q is not this rest endpoint: flinklab's own endpoints answer only "+
				"their own pages and clients that send no Origin (curl, the flink CLI).", strings.Join(origin, ",")))
		}
	}
	if isWrite(r.Method) && hasBody(r) {
		mediaType, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
		if err != nil || mediaType != "application/json" {
			return unsupportedMediaType(fmt.Sprintf("The request body must be sent as application/json, not %q.", r.Header.Get("Content-Type")))
		}
	}
	return nil
}

// isOwnHostName reports whether name, as a Host names it (without port or
// brackets), names this endpoint: an IP address,
// "localhost", the host of Config.Address, or the machine's host name.
func (s *Server) isOwnHostName(name string) bool {
	if _, err := netip.ParseAddr(name); err == nil {
		return true
	}
	configured, _, _ := net.SplitHostPort(s.cfg.Address)
	machine, _ := os.Hostname()
	return strings.EqualFold(name, "localhost") ||
		(configured != "" && strings.EqualFold(name, configured)) ||
		(machine != "" && strings.EqualFold(name, machine))
}

// isOrigin reports whether origin ("http://127.0.0.1:8081") is a page of
// the host and port host ("127.0.0.1:8081", a request's Host) names, as
// the browser compares origins: the same host, in any case, and the same
// port, 80 where none is given. An IP address is compared as an address
// ("[::1]" and "[0:0::1]" are the same).
func isOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Scheme != "http" || u.Path != "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return false
	}
	originName, originPort := splitHost(u.Host, "80")
	hostName, hostPort := splitHost(host, "80")
	return originPort == hostPort && sameHostName(originName, hostName)
}

// sameHostName reports whether a and b (without port or brackets) name the
// same host: the same IP address, or the same name in any case.
func sameHostName(a, b string) bool {
	if addrA, err := netip.ParseAddr(a); err == nil {
		addrB, err := netip.ParseAddr(b)
		return err == nil && addrA == addrB
	}
	return a != "" && strings.EqualFold(a, b)
}

// splitHost splits "host:port", "host", "[::1]:8081" or "[::1]" into the
// host without brackets and the port, defaultPort if none is given.
func splitHost(hostPort, defaultPort string) (host, port string) {
	if h, p, err := net.SplitHostPort(hostPort); err == nil {
		return h, p
	}
	return strings.TrimSuffix(strings.TrimPrefix(hostPort, "["), "]"), defaultPort
}

func isWrite(method string) bool {
	switch method {
	case http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete:
		return true
	}
	return false
}

// hasBody reports whether a request carries a body: a Content-Length
// above zero, or a chunked one of unknown length.
func hasBody(r *http.Request) bool {
	return r.ContentLength != 0 && r.Body != nil && r.Body != http.NoBody
}
