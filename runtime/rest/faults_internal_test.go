package rest

import (
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/fault"
)

// TestIsLoopbackAddress: only an endpoint bound to 127.0.0.0/8 or ::1
// serves /cluster/faults; one bound to every interface does not.
func TestIsLoopbackAddress(t *testing.T) {
	tests := []struct {
		address string
		want    bool
	}{
		{"127.0.0.1:8081", true},
		{"127.1.2.3:8081", true}, // all of 127.0.0.0/8
		{"[::1]:8081", true},
		{"[::ffff:127.0.0.1]:8081", true}, // IPv4-mapped
		{"0.0.0.0:8081", false},           // every interface
		{"[::]:8081", false},
		{"192.168.1.10:8081", false},
		{"[fe80::1%eth0]:8081", false},
		{"128.0.0.1:8081", false},
		{"localhost:8081", false}, // a listener reports an IP, never a name
		{"127.0.0.1", false},      // no port: not a listener's address
		{"", false},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, isLoopbackAddress(tt.address), tt.address)
	}
}

// addrListener is a net.Listener that only reports an address: the
// endpoint reads the address it listens on from its listener.
type addrListener struct{ addr net.Addr }

func (l addrListener) Accept() (net.Conn, error) { return nil, net.ErrClosed }
func (l addrListener) Close() error              { return nil }
func (l addrListener) Addr() net.Addr            { return l.addr }

// TestClusterFaultsRefusedOffLoopback: an endpoint whose listener is bound
// to every interface refuses /cluster/faults with 403 whatever the method,
// and arms nothing. The same server on a loopback address serves it.
func TestClusterFaultsRefusedOffLoopback(t *testing.T) {
	injector := fault.NewInjector(nil)
	s := &Server{log: slog.New(slog.DiscardHandler), deps: Deps{Faults: injector}}
	s.listener = addrListener{&net.TCPAddr{IP: net.IPv4zero, Port: 8081}}
	routes := s.routes()
	serve := func(method, path, body string) *httptest.ResponseRecorder {
		rec := httptest.NewRecorder()
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Host = "127.0.0.1:8081" // the endpoint's own name: see checkSameOrigin
		req.Header.Set("Content-Type", "application/json")
		routes.ServeHTTP(rec, req)
		return rec
	}

	want := `{"errors":["Fault injection is only allowed on a rest endpoint that listens on a loopback address; this one listens on 0.0.0.0:8081."]}`
	for _, path := range []string{"/cluster/faults", "/v1/cluster/faults"} {
		for _, method := range []string{http.MethodGet, http.MethodPost, http.MethodDelete} {
			rec := serve(method, path, `{"fault": "m9"}`)
			assert.Equal(t, http.StatusForbidden, rec.Code, "%s %s", method, path)
			assert.Equal(t, want, strings.TrimSpace(rec.Body.String()), "%s %s", method, path)
		}
	}
	assert.Empty(t, injector.Armed())

	s.listener = addrListener{&net.TCPAddr{IP: net.IPv6loopback, Port: 8081}}
	rec := serve(http.MethodPost, "/cluster/faults", `{"fault": "m9"}`)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Len(t, injector.Armed(), 1)
}
