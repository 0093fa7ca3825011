package tasks

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"go.uber.org/goleak"

	"flinklab/runtime/api"
	"flinklab/runtime/client"
	"flinklab/runtime/gateway"
	"flinklab/runtime/jobgraph"
	"flinklab/runtime/network"
	"flinklab/runtime/streaming"
	"flinklab/runtime/taskmanager"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// writeJar writes a job jar naming programClass, with the given resources,
// into a fresh temporary directory and returns its path.
func writeJar(tb testing.TB, programClass string, resources map[string][]byte) string {
	tb.Helper()
	var buf bytes.Buffer
	if err := client.WriteJar(&buf, programClass, resources); err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(tb.TempDir(), "job.jar")
	if err := os.WriteFile(path, buf.Bytes(), 0o600); err != nil {
		tb.Fatal(err)
	}
	return path
}

// planJobGraph plans a registered program and turns it into a JobGraph,
// as the client (or the REST jar-run handler) does.
func planJobGraph(tb testing.TB, program string, args []string, parallelism int) *jobgraph.JobGraph {
	tb.Helper()
	sg, err := streaming.PlanProgram(program, args, parallelism)
	if err != nil {
		tb.Fatalf("PlanProgram(%s): %v", program, err)
	}
	jg, err := sg.JobGraph()
	if err != nil {
		tb.Fatalf("JobGraph(%s): %v", program, err)
	}
	return jg
}

// localJob runs every subtask of a JobGraph in this process without a
// cluster: what a Task does around its invokable (partitions and gates
// from one ShuffleEnvironment, Restore, Invoke, Finish or Fail), and
// nothing else. It is the test harness of this package, as Flink's
// StreamTaskTestHarness is of Flink's. It supports ALL_TO_ALL edges and
// POINTWISE edges between equal parallelisms.
type localJob struct {
	tasks []*localTask
}

type localTask struct {
	name      string
	env       *taskmanager.Environment
	invokable taskmanager.Invokable
}

// deployLocally creates every subtask's partitions, gates and invokable.
func deployLocally(tb testing.TB, jg *jobgraph.JobGraph, jarPath string, cfg network.Config) *localJob {
	tb.Helper()
	shuffle, err := network.NewShuffleEnvironment(cfg)
	if err != nil {
		tb.Fatal(err)
	}
	vertices, err := jg.VerticesSortedTopologicallyFromSources()
	if err != nil {
		tb.Fatal(err)
	}
	partitionID := func(d *jobgraph.IntermediateDataSet, subtask int) api.ResultPartitionID {
		return api.ResultPartitionID{
			PartitionID: api.IntermediateResultPartitionID{IntermediateDataSetID: d.ID, PartitionNum: subtask},
			ProducerID:  api.ExecutionAttemptID{ExecutionVertexID: api.ExecutionVertexID{JobVertexID: d.Producer.ID, SubtaskIndex: subtask}},
		}
	}

	job := &localJob{}
	for _, v := range vertices {
		factory, ok := taskmanager.LookupInvokable(v.InvokableClassName)
		if !ok {
			tb.Fatalf("no invokable %s", v.InvokableClassName)
		}
		for subtask := range v.Parallelism {
			env := &taskmanager.Environment{
				JobID:   jg.JobID,
				JobName: jg.Name,
				TaskInfo: gateway.TaskInformation{
					JobVertexID:         v.ID,
					TaskName:            v.Name,
					NumberOfSubtasks:    v.Parallelism,
					MaxNumberOfSubtasks: v.MaxParallelism,
					InvokableClassName:  v.InvokableClassName,
					TaskConfiguration:   v.Configuration,
				},
				SubtaskIndex: subtask,
			}
			if jarPath != "" {
				env.UserJarPaths = []string{jarPath}
			}
			for _, d := range v.ProducedDataSets() {
				consumer := d.Consumers()[0]
				subpartitions := consumer.Target.Parallelism
				if consumer.DistributionPattern == jobgraph.Pointwise {
					if consumer.Target.Parallelism != v.Parallelism {
						tb.Fatalf("localJob: POINTWISE edge %v between different parallelisms", consumer)
					}
					subpartitions = 1
				}
				p, err := shuffle.CreateResultPartition(partitionID(d, subtask), subpartitions)
				if err != nil {
					tb.Fatal(err)
				}
				env.Writers = append(env.Writers, p)
			}
			for _, e := range v.Inputs() {
				gdd := gateway.InputGateDeploymentDescriptor{ConsumedSubpartitionIndex: subtask}
				if e.DistributionPattern == jobgraph.Pointwise {
					gdd.ConsumedSubpartitionIndex = 0
					gdd.ShuffleDescriptors = []gateway.ShuffleDescriptor{{ResultPartitionID: partitionID(e.Source, subtask)}}
				} else {
					for producer := range e.Source.Producer.Parallelism {
						gdd.ShuffleDescriptors = append(gdd.ShuffleDescriptors,
							gateway.ShuffleDescriptor{ResultPartitionID: partitionID(e.Source, producer)})
					}
				}
				env.Inputs = append(env.Inputs, shuffle.CreateInputGate(gdd))
			}
			invokable, err := factory(env)
			if err != nil {
				tb.Fatal(err)
			}
			job.tasks = append(job.tasks, &localTask{name: v.Name, env: env, invokable: invokable})
		}
	}
	return job
}

// run runs every subtask on its own goroutine, as the Task does: Restore,
// Invoke, then Finish the partitions, or Fail them with the error. It
// returns once every subtask has ended, with their errors joined.
func (j *localJob) run(ctx context.Context) error {
	var wg sync.WaitGroup
	errs := make([]error, len(j.tasks))
	for i, task := range j.tasks {
		wg.Go(func() { errs[i] = task.run(ctx) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

func (t *localTask) run(ctx context.Context) error {
	defer func() {
		for _, gate := range t.env.Inputs {
			gate.Close()
		}
	}()
	err := t.invokable.Restore(ctx)
	if err == nil {
		err = t.invokable.Invoke(ctx)
	}
	for _, p := range t.env.Writers {
		if err == nil {
			err = p.Finish(ctx)
		}
	}
	if err != nil {
		for _, p := range t.env.Writers {
			p.Fail(err)
		}
	}
	return err
}
