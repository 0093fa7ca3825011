package clusterframework

// TaskExecutorMemoryConfiguration is Flink's TaskExecutorMemoryConfiguration
// (org.apache.flink.runtime.taskexecutor): the size of each part of a
// TaskManager's memory, and the two totals, in bytes. A TaskExecutor
// registers at the ResourceManager with it, and the REST endpoint reports
// it as the memoryConfiguration of GET /taskmanagers and GET
// /taskmanagers/{taskmanagerid}, under these JSON names, in Flink's order.
// For the default 1728m:
//
//	{"frameworkHeap": 134217728, "taskHeap": 402653174, "frameworkOffHeap": 134217728,
//	 "taskOffHeap": 0, "networkMemory": 134217730, "managedMemory": 536870920,
//	 "jvmMetaspace": 268435456, "jvmOverhead": 201326592,
//	 "totalFlinkMemory": 1342177280, "totalProcessMemory": 1811939328}
type TaskExecutorMemoryConfiguration struct {
	FrameworkHeap      int64 `json:"frameworkHeap"`
	TaskHeap           int64 `json:"taskHeap"`
	FrameworkOffHeap   int64 `json:"frameworkOffHeap"`
	TaskOffHeap        int64 `json:"taskOffHeap"`
	NetworkMemory      int64 `json:"networkMemory"`
	ManagedMemory      int64 `json:"managedMemory"`
	JVMMetaspace       int64 `json:"jvmMetaspace"`
	JVMOverhead        int64 `json:"jvmOverhead"`
	TotalFlinkMemory   int64 `json:"totalFlinkMemory"`
	TotalProcessMemory int64 `json:"totalProcessMemory"`
}

// NewTaskExecutorMemoryConfiguration returns the memory configuration of a
// TaskManager with spec.
//
// Flink's TaskExecutorMemoryConfiguration#create reads the same sizes back
// from the TaskManager's configuration, where the start script put them
// as dynamic properties (GenerateDynamicConfigsStr): network memory from
// taskmanager.memory.network.max, JVM overhead from
// taskmanager.memory.jvm-overhead.max, the totals added up from the
// parts. The numbers are the spec's either way.
func NewTaskExecutorMemoryConfiguration(spec TaskExecutorProcessSpec) TaskExecutorMemoryConfiguration {
	return TaskExecutorMemoryConfiguration{
		FrameworkHeap:      spec.FrameworkHeapSize.Bytes(),
		TaskHeap:           spec.TaskHeapSize.Bytes(),
		FrameworkOffHeap:   spec.FrameworkOffHeapSize.Bytes(),
		TaskOffHeap:        spec.TaskOffHeapSize.Bytes(),
		NetworkMemory:      spec.NetworkMemSize.Bytes(),
		ManagedMemory:      spec.ManagedMemorySize.Bytes(),
		JVMMetaspace:       spec.JVMMetaspaceSize.Bytes(),
		JVMOverhead:        spec.JVMOverheadSize.Bytes(),
		TotalFlinkMemory:   spec.TotalFlinkMemorySize().Bytes(),
		TotalProcessMemory: spec.TotalProcessMemorySize().Bytes(),
	}
}
