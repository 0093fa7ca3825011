package rest

import (
	"fmt"
	"net/http"
	"net/netip"

	"flinklab/runtime/api"
	"flinklab/runtime/fault"
)

// ---------------------------------------------------------------------------
// GET, POST and DELETE /cluster/faults — flinklab's own
// ---------------------------------------------------------------------------

// Fault injection breaks the cluster on purpose (see package fault). Only
// someone on the cluster's own machine may do that: the three handlers
// answer 403 unless the endpoint listens on a loopback address, and 403
// when the cluster has no fault.Injector (Deps.Faults). Flink has nothing
// like it.

// handleFaultsList answers the armed faults and every pass on which one
// fired.
func (s *Server) handleFaultsList(_ http.ResponseWriter, _ *http.Request) (any, error) {
	if err := s.checkFaultInjection(); err != nil {
		return nil, err
	}
	fired := []FiredFaultInfo{}
	for _, f := range s.deps.Faults.Fired() {
		fired = append(fired, FiredFaultInfo{Step: f.Fault.Step, Kind: f.Fault.Kind, JobID: jobIDOrNull(f.JobID), Time: f.Time})
	}
	return ClusterFaultsInfo{Armed: armedFaults(s.deps.Faults), Fired: fired}, nil
}

// handleFaultInject arms the fault of the body, {"fault": "m10:jar-corrupted,times=2"},
// and answers the armed faults. A fault that does not parse is a 400 with
// fault.Parse's message.
func (s *Server) handleFaultInject(_ http.ResponseWriter, r *http.Request) (any, error) {
	if err := s.checkFaultInjection(); err != nil {
		return nil, err
	}
	var body FaultInjectionRequestBody
	if err := decodeJSONBody(r, &body, "FaultInjectionRequestBody"); err != nil {
		return nil, err
	}
	f, err := fault.Parse(body.Fault)
	if err == nil {
		err = s.deps.Faults.Inject(f)
	}
	if err != nil {
		return nil, badRequest(err.Error())
	}
	s.log.Info(fmt.Sprintf("Armed fault %s.", f), "remote", r.RemoteAddr)
	return ArmedFaultsInfo{Armed: armedFaults(s.deps.Faults)}, nil
}

// handleFaultsClear disarms every fault and answers the armed faults: none.
// What has fired stays listed.
func (s *Server) handleFaultsClear(_ http.ResponseWriter, r *http.Request) (any, error) {
	if err := s.checkFaultInjection(); err != nil {
		return nil, err
	}
	s.deps.Faults.Clear()
	s.log.Info("Disarmed every fault.", "remote", r.RemoteAddr)
	return ArmedFaultsInfo{Armed: armedFaults(s.deps.Faults)}, nil
}

// checkFaultInjection refuses fault injection (403) on an endpoint that
// does not listen on a loopback address, whatever the client, and on a
// cluster without a fault.Injector. It reads the address the listener is
// actually bound to, so "localhost:0" that resolved to 127.0.0.1 passes and
// ":8081" (every interface) does not.
func (s *Server) checkFaultInjection() error {
	s.mu.Lock()
	ln := s.listener
	s.mu.Unlock()
	if ln == nil || !isLoopbackAddress(ln.Addr().String()) {
		address := "no address"
		if ln != nil {
			address = ln.Addr().String()
		}
		return forbidden(fmt.Sprintf("Fault injection is only allowed on a rest endpoint that listens on a loopback address; this one listens on %s.", address))
	}
	if s.deps.Faults == nil {
		return forbidden("Fault injection is not enabled on this cluster.")
	}
	return nil
}

// isLoopbackAddress reports whether a listener's "host:port" is on a
// loopback address: 127.0.0.0/8 or ::1 (also written as the IPv4-mapped
// ::ffff:127.x.y.z). The unspecified 0.0.0.0 and ::, which listen on every
// interface, are not.
func isLoopbackAddress(hostPort string) bool {
	addrPort, err := netip.ParseAddrPort(hostPort)
	return err == nil && addrPort.Addr().Unmap().IsLoopback()
}

// armedFaults lists the faults armed now, [] when none.
func armedFaults(in *fault.Injector) []ArmedFaultInfo {
	armed := []ArmedFaultInfo{}
	for _, f := range in.Armed() {
		armed = append(armed, ArmedFaultInfo{Step: f.Step, Kind: f.Kind, Times: f.Times, After: f.After, JobID: jobIDOrNull(f.JobID), Spec: f.String()})
	}
	return armed
}

// jobIDOrNull returns nil, JSON's null, for the zero JobID.
func jobIDOrNull(id api.JobID) *api.JobID {
	if id.IsZero() {
		return nil
	}
	return &id
}
