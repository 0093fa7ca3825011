package slotmanager

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"sync"

	"flinklab/runtime/api"
	"flinklab/runtime/gateway/gatewaytest"
)

// slotRequest is one RequestSlot call a fake TaskExecutor received.
type slotRequest struct {
	SlotID           api.SlotID
	JobID            api.JobID
	AllocationID     api.AllocationID
	Profile          api.ResourceProfile
	JobMasterAddress string
	RMID             api.ResourceManagerID
}

// slotRequests records the RequestSlot calls of any number of fake
// TaskExecutors, in the order they arrive. Requests sent by one check run
// concurrently (one rpc.Ask each), so their order is not determined.
type slotRequests struct {
	mu   sync.Mutex
	list []slotRequest
}

// gateway returns a fake TaskExecutor that records each request and then
// answers it with answer (nil: accept).
func (r *slotRequests) gateway(answer func(ctx context.Context, req slotRequest) error) *gatewaytest.TaskExecutorGateway {
	return &gatewaytest.TaskExecutorGateway{
		RequestSlotFunc: func(ctx context.Context, slotID api.SlotID, jobID api.JobID, allocationID api.AllocationID,
			profile api.ResourceProfile, jobMasterAddress string, rmID api.ResourceManagerID) error {
			req := slotRequest{slotID, jobID, allocationID, profile, jobMasterAddress, rmID}
			r.mu.Lock()
			r.list = append(r.list, req)
			r.mu.Unlock()
			if answer != nil {
				return answer(ctx, req)
			}
			return nil
		},
	}
}

func (r *slotRequests) all() []slotRequest {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]slotRequest(nil), r.list...)
}

func (r *slotRequests) slotIDs() []api.SlotID {
	var ids []api.SlotID
	for _, req := range r.all() {
		ids = append(ids, req.SlotID)
	}
	return ids
}

// logBuffer collects JSON log lines from any goroutine.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

// logRecord is the part of a JSON log line the tests look at.
type logRecord struct {
	Level  string `json:"level"`
	Msg    string `json:"msg"`
	Logger string `json:"logger"`
}

func (b *logBuffer) records() []logRecord {
	b.mu.Lock()
	data := append([]byte(nil), b.buf.Bytes()...)
	b.mu.Unlock()
	var out []logRecord
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		var r logRecord
		if json.Unmarshal(sc.Bytes(), &r) == nil {
			out = append(out, r)
		}
	}
	return out
}

// messages returns the messages of the records whose message starts with
// prefix.
func (b *logBuffer) messages(prefix string) []string {
	var out []string
	for _, r := range b.records() {
		if len(r.Msg) >= len(prefix) && r.Msg[:len(prefix)] == prefix {
			out = append(out, r.Msg)
		}
	}
	return out
}
