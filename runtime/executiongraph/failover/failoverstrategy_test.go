package failover_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"

	"flinklab/runtime/api"
	"flinklab/runtime/executiongraph/failover"
)

func TestRestartAllFailoverStrategyRestartsEverything(t *testing.T) {
	all := slices.Concat(subtasks(2), subtasks(3))
	s := failover.NewRestartAllFailoverStrategy(all)
	for _, failed := range all {
		assert.Equal(t, all, s.TasksNeedingRestart(failed, errBoom))
	}
	got := s.TasksNeedingRestart(all[0], errBoom)
	got[0] = all[4]
	assert.Equal(t, all, s.TasksNeedingRestart(all[0], errBoom), "each call returns a fresh slice")
}

// regionTopology is a job of four regions:
//
//	A (a0, a1) ══blocking══► B (b0, b1) ══blocking══► C (c0)
//	D (d0): alone
type regionTopology struct {
	a, b, c, d []api.ExecutionVertexID
}

func newRegionTopology() regionTopology {
	return regionTopology{a: subtasks(2), b: subtasks(2), c: subtasks(1), d: subtasks(1)}
}

func (tp regionTopology) all() []api.ExecutionVertexID { return slices.Concat(tp.a, tp.b, tp.c, tp.d) }

func (tp regionTopology) regionOf(v api.ExecutionVertexID) int {
	for i, region := range [][]api.ExecutionVertexID{tp.a, tp.b, tp.c, tp.d} {
		if slices.Contains(region, v) {
			return i
		}
	}
	return -1
}

// consumersOf: every subtask of A feeds every subtask of B (ALL_TO_ALL),
// b0 and b1 both feed c0.
func (tp regionTopology) consumersOf(v api.ExecutionVertexID) []api.ExecutionVertexID {
	switch {
	case slices.Contains(tp.a, v):
		return tp.b
	case slices.Contains(tp.b, v):
		return tp.c
	}
	return nil
}

func TestRestartPipelinedRegionFailoverStrategy(t *testing.T) {
	tp := newRegionTopology()
	s := failover.NewRestartPipelinedRegionFailoverStrategy(tp.all(), tp.regionOf, tp.consumersOf)
	tests := []struct {
		name   string
		failed api.ExecutionVertexID
		want   []api.ExecutionVertexID
	}{
		{"a source region restarts with everything downstream", tp.a[1], slices.Concat(tp.a, tp.b, tp.c)},
		{"a middle region restarts with its consumers, not its producers", tp.b[0], slices.Concat(tp.b, tp.c)},
		{"a sink region restarts alone", tp.c[0], tp.c},
		{"an unconnected region restarts alone", tp.d[0], tp.d},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, s.TasksNeedingRestart(tt.failed, errBoom))
		})
	}
}

func TestRestartPipelinedRegionFailoverStrategyDiamond(t *testing.T) {
	// X feeds Y and Z, both feed W, each its own region: W is reached twice
	// and restarts once.
	x, y, z, w := subtasks(1), subtasks(1), subtasks(1), subtasks(1)
	all := slices.Concat(x, y, z, w)
	regionOf := func(v api.ExecutionVertexID) int { return slices.Index(all, v) }
	consumersOf := func(v api.ExecutionVertexID) []api.ExecutionVertexID {
		switch v {
		case x[0]:
			return slices.Concat(y, z)
		case y[0], z[0]:
			return w
		}
		return nil
	}
	s := failover.NewRestartPipelinedRegionFailoverStrategy(all, regionOf, consumersOf)
	assert.Equal(t, all, s.TasksNeedingRestart(x[0], errBoom))
	assert.Equal(t, slices.Concat(y, w), s.TasksNeedingRestart(y[0], errBoom))
}

func TestRestartPipelinedRegionFailoverStrategyWithoutConsumers(t *testing.T) {
	tp := newRegionTopology()
	s := failover.NewRestartPipelinedRegionFailoverStrategy(tp.all(), tp.regionOf, nil)
	assert.Equal(t, tp.a, s.TasksNeedingRestart(tp.a[0], errBoom))
}

func TestRestartPipelinedRegionFailoverStrategyOneRegion(t *testing.T) {
	// All exchanges pipelined: the job is one region, and region failover
	// restarts everything, as restart-all would.
	all := slices.Concat(subtasks(2), subtasks(2))
	s := failover.NewRestartPipelinedRegionFailoverStrategy(all, func(api.ExecutionVertexID) int { return 0 }, nil)
	assert.Equal(t, all, s.TasksNeedingRestart(all[3], errBoom))
}

func TestRestartPipelinedRegionFailoverStrategyUnknownVertex(t *testing.T) {
	tp := newRegionTopology()
	s := failover.NewRestartPipelinedRegionFailoverStrategy(tp.all(), tp.regionOf, tp.consumersOf)
	stranger := subtasks(1)[0]
	assert.PanicsWithValue(t, "Can not find the failover region for task "+stranger.String(), func() {
		s.TasksNeedingRestart(stranger, errBoom)
	})
}

// The names the scheduler logs in "Using failover strategy {} for {} ({}).".
func TestFailoverStrategyNames(t *testing.T) {
	all := subtasks(1)
	assert.Equal(t, "RestartAllFailoverStrategy", fmt.Sprint(failover.NewRestartAllFailoverStrategy(all)))
	assert.Equal(t, "RestartPipelinedRegionFailoverStrategy",
		fmt.Sprint(failover.NewRestartPipelinedRegionFailoverStrategy(all, func(api.ExecutionVertexID) int { return 0 }, nil)))
}
