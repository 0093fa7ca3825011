package taskmanagerrunner

import (
	"maps"

	"flinklab/runtime/clusterframework"
	"flinklab/runtime/configuration"
)

// DefaultTotalProcessMemory is taskmanager.memory.process.size as Flink's
// distribution ships it in its configuration file (conf/config.yaml,
// flink-conf.yaml before Flink 1.19): a 1728m TaskManager, whose 1280m of
// Total Flink Memory are split as package clusterframework shows.
const DefaultTotalProcessMemory = "1728m"

// ProcessSpec computes a TaskManager's CPU cores, memory and slots from its
// configuration (Flink's keys and their text, as `-D key=value` gives
// them), as a TaskManager started from Flink's distribution gets them:
// clusterframework.ProcessSpecFromConfig of the configuration, with
// taskmanager.memory.process.size: 1728m (DefaultTotalProcessMemory) when
// it configures none of the three ways of sizing the memory: neither
// taskmanager.memory.process.size, nor taskmanager.memory.flink.size, nor
// both taskmanager.memory.task.heap.size and
// taskmanager.memory.managed.size. taskmanager.numberOfTaskSlots is the
// number of slots (1 if not set), and taskmanager.cpu.cores the CPU cores
// (the number of slots if not set).
//
// A configuration that cannot work is Flink's
// IllegalConfigurationException, with Flink's text ("TaskManager memory
// configuration failed: ..."), and the TaskManager does not start; see
// clusterframework.ProcessSpecFromConfig for the errors.
//
// Differs from Flink: the distribution's line is in the configuration file,
// so it is there whatever else is set, and a TaskManager given only
// taskmanager.memory.flink.size must agree with it or fail ("Configured
// and Derived memory sizes ... do not add up to the configured Total
// Process Memory size"); Flink's users delete the line. Here the default
// steps aside for any other way of sizing the memory.
func ProcessSpec(conf map[string]string) (clusterframework.TaskExecutorProcessSpec, error) {
	c := configuration.Configuration(conf)
	configuresMemory := c.Contains(configuration.TotalProcessMemory) ||
		c.Contains(configuration.TotalFlinkMemory) ||
		c.Contains(configuration.TaskHeapMemory) && c.Contains(configuration.ManagedMemorySize)
	if !configuresMemory {
		c = maps.Clone(c)
		if c == nil {
			c = configuration.Configuration{}
		}
		c[configuration.TotalProcessMemory.Key()] = DefaultTotalProcessMemory
	}
	return clusterframework.ProcessSpecFromConfig(c)
}
