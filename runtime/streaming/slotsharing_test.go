package streaming

import (
	"errors"
	"math"
	"strings"
	"testing"

	"flinklab/runtime/api"
	"flinklab/runtime/configuration"
	"flinklab/runtime/jobgraph"
)

// mib is n mebibytes.
func mib(n int64) configuration.MemorySize { return configuration.OfMebiBytes(n) }

// mustBuild builds a group the test means to be valid.
func mustBuild(t *testing.T, b *SlotSharingGroupBuilder) SlotSharingGroup {
	t.Helper()
	group, err := b.Build()
	if err != nil {
		t.Fatalf("Build: %v", err)
	}
	return group
}

// The builder accepts a name alone, or CPU cores and task heap memory with
// or without the rest, and checks each amount as Flink's builder does.
func TestSlotSharingGroupBuilder(t *testing.T) {
	const required = "The cpu cores and task heap memory are required when specifying the resource of a slot sharing group. You need to explicitly configure them with positive value."
	b := NewSlotSharingGroupBuilder
	tests := []struct {
		name    string
		builder *SlotSharingGroupBuilder
		want    api.ResourceProfile // when the build succeeds
		wantErr string              // the whole message, "" for success
	}{
		{"a name alone", b("g"), api.UnknownResourceProfile, ""},
		{"cpu cores and task heap", b("g").SetCPUCores(0.5).SetTaskHeapMemory(mib(100)),
			api.NewResourceProfile(0.5, mib(100), 0, 0, 0), ""},
		{"every amount, in MB", b("g").SetCPUCores(0.25).SetTaskHeapMemoryMB(64).SetTaskOffHeapMemoryMB(16).SetManagedMemoryMB(32),
			api.NewResourceProfile(0.25, mib(64), mib(16), mib(32), 0), ""},
		{"every amount, as MemorySize", b("g").SetCPUCores(2).SetTaskHeapMemory(mib(1)).SetTaskOffHeapMemory(mib(2)).SetManagedMemory(mib(3)),
			api.NewResourceProfile(2, mib(1), mib(2), mib(3), 0), ""},
		{"zero off-heap and managed memory", b("g").SetCPUCores(1).SetTaskHeapMemoryMB(1).SetTaskOffHeapMemoryMB(0).SetManagedMemory(0),
			api.NewResourceProfile(1, mib(1), 0, 0, 0), ""},
		{"a later setter wins", b("g").SetCPUCores(1).SetCPUCores(3).SetTaskHeapMemoryMB(1),
			api.NewResourceProfile(3, mib(1), 0, 0, 0), ""},

		{"cpu cores only", b("g").SetCPUCores(1), api.ResourceProfile{}, required},
		{"task heap only", b("g").SetTaskHeapMemoryMB(64), api.ResourceProfile{}, required},
		{"managed memory only", b("g").SetManagedMemoryMB(64), api.ResourceProfile{}, required},
		{"off-heap memory only", b("g").SetTaskOffHeapMemory(0), api.ResourceProfile{}, required},
		{"zero cpu cores", b("g").SetCPUCores(0).SetTaskHeapMemoryMB(1), api.ResourceProfile{}, "The cpu cores should be positive."},
		{"negative cpu cores", b("g").SetCPUCores(-1), api.ResourceProfile{}, "The cpu cores should be positive."},
		{"NaN cpu cores", b("g").SetCPUCores(math.NaN()), api.ResourceProfile{}, "The cpu cores should be positive."},
		{"infinite cpu cores", b("g").SetCPUCores(math.Inf(1)), api.ResourceProfile{}, "The cpu cores should be finite."},
		{"zero task heap", b("g").SetCPUCores(1).SetTaskHeapMemory(0), api.ResourceProfile{}, "The task heap memory should be positive."},
		{"zero task heap MB", b("g").SetCPUCores(1).SetTaskHeapMemoryMB(0), api.ResourceProfile{}, "The task heap memory should be positive."},
		{"negative task heap MB", b("g").SetTaskHeapMemoryMB(-1), api.ResourceProfile{}, "The task heap memory should be positive."},
		{"negative off-heap memory", b("g").SetTaskOffHeapMemory(-1), api.ResourceProfile{}, "The task off-heap memory should not be negative."},
		{"negative off-heap memory MB", b("g").SetTaskOffHeapMemoryMB(-1), api.ResourceProfile{}, "The task off-heap memory should not be negative."},
		{"negative managed memory", b("g").SetManagedMemory(-1), api.ResourceProfile{}, "The managed memory should not be negative."},
		{"negative managed memory MB", b("g").SetManagedMemoryMB(-1), api.ResourceProfile{}, "The managed memory should not be negative."},
		{"too many MB", b("g").SetCPUCores(1).SetTaskHeapMemoryMB(math.MaxInt), api.ResourceProfile{},
			"The task heap memory of 9223372036854775807 MB does not fit in a MemorySize."},
		{"the first mistake is the one returned", b("g").SetCPUCores(0).SetTaskHeapMemoryMB(0), api.ResourceProfile{}, "The cpu cores should be positive."},
		{"an empty name", b(""), api.ResourceProfile{}, "the slot sharing group name must not be empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			group, err := tt.builder.Build()
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("Build() = %v, %v; want the error %q", group, err, tt.wantErr)
				}
				if group != (SlotSharingGroup{}) {
					t.Errorf("Build() returned %+v with its error, want the zero value", group)
				}
				return
			}
			if err != nil {
				t.Fatalf("Build: %v", err)
			}
			if group.Name() != "g" {
				t.Errorf("Name() = %q, want g", group.Name())
			}
			if got := group.ResourceProfile(); got != tt.want {
				t.Errorf("ResourceProfile() = %v, want %v", got, tt.want)
			}
		})
	}
}

// slotSharingJob is source → A → B → Sink at parallelism 2; configure
// sets up the operators A and B (and the environment). The edges are
// FORWARD, so only the slot sharing groups and chaining strategies decide
// the chains.
func slotSharingJob(t *testing.T, configure func(env *StreamExecutionEnvironment, a, b *DataStream[string])) (*StreamGraph, *jobgraph.JobGraph, error) {
	t.Helper()
	env := NewStreamExecutionEnvironment().SetParallelism(2)
	a := Map(FromElements(env, "x"), identity).Name("A")
	b := a.Filter(keep).Name("B")
	configure(env, a, b)
	b.Print().Name("out")
	g, err := env.GetStreamGraph("slot sharing")
	if err != nil {
		return nil, nil, err
	}
	jg, err := CreateJobGraph(g)
	return g, jg, err
}

// vertexOf returns the JobVertex whose name starts with prefix.
func vertexOf(t *testing.T, jg *jobgraph.JobGraph, prefix string) *jobgraph.JobVertex {
	t.Helper()
	for _, v := range jg.Vertices() {
		if strings.HasPrefix(v.Name, prefix) {
			return v
		}
	}
	t.Fatalf("no JobVertex named %s… in %v", prefix, jg.Vertices())
	return nil
}

// The resources of a slot sharing group reach the JobGraph from every way
// a program can give them: on the operator, on another operator of the
// group, or registered with the environment. Groups without resources and
// groups no vertex uses stay out.
func TestSlotSharingGroupResourcesReachTheJobGraph(t *testing.T) {
	heavy := mustBuild(t, NewSlotSharingGroupBuilder("heavy").SetCPUCores(1.5).SetTaskHeapMemoryMB(256).SetManagedMemoryMB(128))
	heavyProfile := api.NewResourceProfile(1.5, mib(256), 0, mib(128), 0)
	nameOnly := mustBuild(t, NewSlotSharingGroupBuilder("heavy"))
	unused := mustBuild(t, NewSlotSharingGroupBuilder("unused").SetCPUCores(1).SetTaskHeapMemoryMB(1))

	tests := []struct {
		name      string
		configure func(env *StreamExecutionEnvironment, a, b *DataStream[string])
		want      map[string]api.ResourceProfile
	}{
		{
			name:      "no resources anywhere",
			configure: func(_ *StreamExecutionEnvironment, _, b *DataStream[string]) { b.SetSlotSharingGroup(nameOnly) },
		},
		{
			name:      "on the operator",
			configure: func(_ *StreamExecutionEnvironment, _, b *DataStream[string]) { b.SetSlotSharingGroup(heavy) },
			want:      map[string]api.ResourceProfile{"heavy": heavyProfile},
		},
		{
			name: "on another operator of the group",
			configure: func(_ *StreamExecutionEnvironment, a, b *DataStream[string]) {
				a.SetSlotSharingGroup(heavy)
				b.SlotSharingGroup("heavy")
			},
			want: map[string]api.ResourceProfile{"heavy": heavyProfile},
		},
		{
			name: "registered, the operator sets the name",
			configure: func(env *StreamExecutionEnvironment, _, b *DataStream[string]) {
				env.RegisterSlotSharingGroup(heavy).RegisterSlotSharingGroup(unused)
				b.SetSlotSharingGroup(nameOnly)
			},
			want: map[string]api.ResourceProfile{"heavy": heavyProfile},
		},
		{
			name: "registered and on the operator, the same",
			configure: func(env *StreamExecutionEnvironment, _, b *DataStream[string]) {
				env.RegisterSlotSharingGroup(heavy)
				b.SetSlotSharingGroup(heavy)
			},
			want: map[string]api.ResourceProfile{"heavy": heavyProfile},
		},
		{
			name: "registered for the default group",
			configure: func(env *StreamExecutionEnvironment, _, _ *DataStream[string]) {
				env.RegisterSlotSharingGroup(mustBuild(t, NewSlotSharingGroupBuilder(DefaultSlotSharingGroup).SetCPUCores(1).SetTaskHeapMemoryMB(32)))
			},
			want: map[string]api.ResourceProfile{DefaultSlotSharingGroup: api.NewResourceProfile(1, mib(32), 0, 0, 0)},
		},
		{
			name: "registered again: the last registration counts",
			configure: func(env *StreamExecutionEnvironment, _, b *DataStream[string]) {
				env.RegisterSlotSharingGroup(mustBuild(t, NewSlotSharingGroupBuilder("heavy").SetCPUCores(9).SetTaskHeapMemoryMB(9)))
				env.RegisterSlotSharingGroup(heavy)
				env.RegisterSlotSharingGroup(nameOnly) // no resources: changes nothing
				b.SlotSharingGroup("heavy")
			},
			want: map[string]api.ResourceProfile{"heavy": heavyProfile},
		},
		{
			name: "a name set later drops the operator's resources",
			configure: func(_ *StreamExecutionEnvironment, _, b *DataStream[string]) {
				b.SetSlotSharingGroup(heavy).SlotSharingGroup("heavy")
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, jg, err := slotSharingJob(t, tt.configure)
			if err != nil {
				t.Fatal(err)
			}
			if len(jg.SlotSharingGroupResources) != len(tt.want) {
				t.Errorf("SlotSharingGroupResources = %v, want %v", jg.SlotSharingGroupResources, tt.want)
			}
			for name, want := range tt.want {
				if got := jg.SlotSharingGroupResourceProfile(name); got != want {
					t.Errorf("resources of %q = %v, want %v", name, got, want)
				}
			}
		})
	}
}

// A group set with resources splits chains like a group set by name: the
// operator after B inherits B's group and its resources.
func TestSetSlotSharingGroupIsInherited(t *testing.T) {
	heavy := mustBuild(t, NewSlotSharingGroupBuilder("heavy").SetCPUCores(1).SetTaskHeapMemoryMB(64))
	g, jg, err := slotSharingJob(t, func(_ *StreamExecutionEnvironment, _, b *DataStream[string]) { b.SetSlotSharingGroup(heavy) })
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"A": DefaultSlotSharingGroup, "B": "heavy", "Sink: out": "heavy"} {
		if got := nodeNamed(t, g, name).SlotSharingGroup; got != want {
			t.Errorf("%s is in %q, want %q", name, got, want)
		}
	}
	if got := vertexOf(t, jg, "B").Name; got != "B -> Sink: out" {
		t.Errorf("vertex %q, want B -> Sink: out", got)
	}
	if got, ok := g.SlotSharingGroupResource("heavy"); !ok || got != heavy.ResourceProfile() {
		t.Errorf("StreamGraph.SlotSharingGroupResource(heavy) = %v, %v; want %v, true", got, ok, heavy.ResourceProfile())
	}
	if got, ok := g.SlotSharingGroupResource(DefaultSlotSharingGroup); ok || !got.IsUnknown() {
		t.Errorf("StreamGraph.SlotSharingGroupResource(default) = %v, %v; want UNKNOWN, false", got, ok)
	}
}

// One group name, two different resource specs: the program fails, as
// Flink's StreamGraphGenerator does, however the specs were given.
func TestTwoResourceSpecsForOneGroup(t *testing.T) {
	small := mustBuild(t, NewSlotSharingGroupBuilder("g").SetCPUCores(1).SetTaskHeapMemoryMB(64))
	large := mustBuild(t, NewSlotSharingGroupBuilder("g").SetCPUCores(1).SetTaskHeapMemoryMB(128))
	for name, configure := range map[string]func(env *StreamExecutionEnvironment, a, b *DataStream[string]){
		"two operators": func(_ *StreamExecutionEnvironment, a, b *DataStream[string]) {
			a.SetSlotSharingGroup(small)
			b.SetSlotSharingGroup(large)
		},
		"registered and an operator": func(env *StreamExecutionEnvironment, _, b *DataStream[string]) {
			env.RegisterSlotSharingGroup(small)
			b.SetSlotSharingGroup(large)
		},
	} {
		t.Run(name, func(t *testing.T) {
			_, _, err := slotSharingJob(t, configure)
			want := ": The slot sharing group g has been configured with two different resource spec."
			if err == nil || !strings.HasSuffix(err.Error(), want) {
				t.Fatalf("error = %v, want one ending in %q", err, want)
			}
		})
	}
}

// Co-location follows the head operator of each JobVertex, and its groups
// must each lie in one slot sharing group.
func TestCoLocation(t *testing.T) {
	tests := []struct {
		name      string
		configure func(env *StreamExecutionEnvironment, a, b *DataStream[string])
		modify    func(t *testing.T, g *StreamGraph)
		want      map[string]string // vertex name prefix → co-location group
		wantErr   string
	}{
		{
			name: "two vertices of one slot sharing group",
			configure: func(_ *StreamExecutionEnvironment, a, b *DataStream[string]) {
				a.StartNewChain().SetCoLocationGroupKey("pair")
				b.DisableChaining().SetCoLocationGroupKey("pair")
			},
			want: map[string]string{"Source": "", "A": "pair", "B": "pair", "Sink": ""},
		},
		{
			name: "the key of an operator inside a chain is not the vertex's",
			configure: func(_ *StreamExecutionEnvironment, _, b *DataStream[string]) {
				b.SetCoLocationGroupKey("ignored")
			},
			want: map[string]string{"Source": ""},
		},
		{
			name: "an empty key takes the operator out again",
			configure: func(_ *StreamExecutionEnvironment, a, _ *DataStream[string]) {
				a.StartNewChain().SetCoLocationGroupKey("pair").SetCoLocationGroupKey("")
			},
			want: map[string]string{"A": ""},
		},
		{
			name: "two slot sharing groups",
			configure: func(_ *StreamExecutionEnvironment, a, b *DataStream[string]) {
				a.StartNewChain().SetCoLocationGroupKey("pair")
				b.SlotSharingGroup("other").SetCoLocationGroupKey("pair")
			},
			wantErr: `co-location group "pair": Cannot co-locate operators from different slot sharing groups: A-2 is in "default", B-3 in "other"`,
		},
		{
			name: "no slot sharing group",
			configure: func(_ *StreamExecutionEnvironment, a, _ *DataStream[string]) {
				a.StartNewChain().SetCoLocationGroupKey("alone")
			},
			modify: func(t *testing.T, g *StreamGraph) {
				nodeNamed(t, g, "A").SlotSharingGroup = "" // no program can do this
			},
			wantErr: `A-2 in co-location group "alone": Cannot use a co-location constraint without a slot sharing group`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := NewStreamExecutionEnvironment().SetParallelism(2)
			a := Map(FromElements(env, "x"), identity).Name("A")
			b := a.Filter(keep).Name("B")
			tt.configure(env, a, b)
			b.Print().Name("out")
			g, err := env.GetStreamGraph("co-location")
			if err != nil {
				t.Fatal(err)
			}
			if tt.modify != nil {
				tt.modify(t, g)
			}
			jg, err := CreateJobGraph(g)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("CreateJobGraph error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for prefix, want := range tt.want {
				if got := vertexOf(t, jg, prefix).CoLocationGroup; got != want {
					t.Errorf("vertex %s… is in co-location group %q, want %q", prefix, got, want)
				}
			}
		})
	}
}

// Mistakes with slot sharing groups and co-location keys are program
// errors, kept by the environment like the others.
func TestBadSlotSharingSettings(t *testing.T) {
	tests := []struct {
		name  string
		build func(env *StreamExecutionEnvironment)
		want  string
		is    error
	}{
		{
			name: "a group without a name",
			build: func(env *StreamExecutionEnvironment) {
				FromElements(env, "x").SetSlotSharingGroup(SlotSharingGroup{}).Print()
			},
			want: "Collection Source (id 1): the slot sharing group name must not be empty",
			is:   errEmptySlotSharingGroupName,
		},
		{
			name: "a sink's group without a name",
			build: func(env *StreamExecutionEnvironment) {
				FromElements(env, "x").Print().SetSlotSharingGroup(SlotSharingGroup{})
			},
			want: "Print to Std. Out (id 2): the slot sharing group name must not be empty",
			is:   errEmptySlotSharingGroupName,
		},
		{
			name: "registering a group without a name",
			build: func(env *StreamExecutionEnvironment) {
				env.RegisterSlotSharingGroup(SlotSharingGroup{})
				FromElements(env, "x").Print()
			},
			want: "RegisterSlotSharingGroup: the slot sharing group name must not be empty",
			is:   errEmptySlotSharingGroupName,
		},
		{
			name: "a group on a partitioned stream",
			build: func(env *StreamExecutionEnvironment) {
				FromElements(env, "x").Rebalance().SetSlotSharingGroup(SlotSharingGroup{name: "g"}).Print()
			},
			want: "SetSlotSharingGroup() on Partition (id 2): only operators have this setting",
			is:   errNotAnOperator,
		},
		{
			name: "a co-location key on a partitioned stream",
			build: func(env *StreamExecutionEnvironment) {
				FromElements(env, "x").Rebalance().SetCoLocationGroupKey("k").Print()
			},
			want: "SetCoLocationGroupKey() on Partition (id 2): only operators have this setting",
			is:   errNotAnOperator,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := NewStreamExecutionEnvironment()
			tt.build(env)
			_, err := env.GetStreamGraph("")
			if err == nil || !strings.Contains(err.Error(), tt.want) || !errors.Is(err, tt.is) {
				t.Fatalf("error = %v, want one containing %q and wrapping %q", err, tt.want, tt.is)
			}
		})
	}
}
