package rest_test

import (
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/rest"
)

// TestJSONBodiesAreStrict: every endpoint that reads a JSON body refuses,
// with 400 and before doing anything, a body with a field its type does
// not have and a body over 1 MiB; POST /jobs does so for its "request"
// part.
func TestJSONBodiesAreStrict(t *testing.T) {
	huge := `{"programArgsList": ["` + strings.Repeat("x", 1<<20) + `"]}`
	endpoints := []struct {
		name, typeName string
		send           func(h *harness, jarID, body string) response
	}{
		{"POST /jars/{jarid}/run", "JarRunRequestBody", func(h *harness, jarID, body string) response {
			return h.post("/jars/"+jarID+"/run", "application/json", []byte(body))
		}},
		{"POST /jars/{jarid}/plan", "JarPlanRequestBody", func(h *harness, jarID, body string) response {
			return h.post("/jars/"+jarID+"/plan", "application/json", []byte(body))
		}},
		{"GET /jars/{jarid}/plan", "JarPlanRequestBody", func(h *harness, jarID, body string) response {
			req, err := http.NewRequest(http.MethodGet, h.baseURL+"/jars/"+jarID+"/plan", strings.NewReader(body))
			require.NoError(h.t, err)
			return h.do(req)
		}},
		{"POST /cluster/faults", "FaultInjectionRequestBody", func(h *harness, _, body string) response {
			return h.post("/cluster/faults", "application/json", []byte(body))
		}},
		{"POST /jobs, its request part", "JobSubmitRequestBody", func(h *harness, _, body string) response {
			contentType, multipart := submitBody(h.t, requestPart(body))
			return h.post("/jobs", contentType, multipart)
		}},
		{"POST /jobs, not multipart", "JobSubmitRequestBody", func(h *harness, _, body string) response {
			return h.post("/jobs", "application/json", []byte(body))
		}},
	}
	bodies := []struct {
		name, body, wantReason string
	}{
		{"an unknown field", `{"colour": "red"}`, `json: unknown field "colour"`},
		{"a body over 1 MiB", huge, "The JSON body is larger than 1048576 bytes."},
	}
	h := newHarness(t)
	jarID := h.uploadJar("wordcount.jar", "wordcount")
	for _, e := range endpoints {
		for _, b := range bodies {
			r := e.send(h, jarID, b.body)
			assert.Equal(t, http.StatusBadRequest, r.status, "%s with %s: %.200s", e.name, b.name, r.body)
			assert.Equal(t, []string{"Request did not match expected format " + e.typeName + ".", b.wantReason}, r.errors,
				"%s with %s", e.name, b.name)
		}
	}
	assert.Empty(t, h.dispatcher.Submitted())
	assert.Empty(t, h.programs.Calls(), "no program ran")
	assert.Empty(t, h.faults.Armed())
}

// TestServerBindsLoopbackByDefault: without Config.Address the endpoint
// listens on 127.0.0.1 only, on a free port; it binds elsewhere only when
// told to.
func TestServerBindsLoopbackByDefault(t *testing.T) {
	assert.Equal(t, "127.0.0.1:0", rest.DefaultAddress)
	h := newHarness(t) // Config.Address not set
	host, _, err := net.SplitHostPort(h.server.Address())
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1", host)

	h = newHarness(t, func(c *rest.Config) { c.Address = "127.0.0.2:0" }) // Linux: all of 127.0.0.0/8 is loopback
	host, _, err = net.SplitHostPort(h.server.Address())
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.2", host, "an address that is set is bound")
}
