package clusterframework

import (
	"errors"
	"math"

	"flinklab/runtime/configuration"
)

// ErrIllegalConfiguration is Flink's IllegalConfigurationException, the
// same sentinel as configuration.ErrIllegalConfiguration (where Flink keeps
// the class). Every error of ProcessSpecFromConfig that Flink throws as an
// IllegalConfigurationException wraps it.
var ErrIllegalConfiguration = configuration.ErrIllegalConfiguration

// ProcessSpecFromConfig derives a TaskManager's CPU cores and memory from
// its configuration, exactly as Flink's
// TaskExecutorProcessUtils#processSpecFromConfig does (Flink 1.17+): the
// same three ways of configuring memory, the same order of derivation, the
// same rounding (to the byte) and the same error messages. config maps
// Flink keys to their text, as a configuration file or "-D key=value"
// gives them; keys it does not know are ignored.
//
// The errors are Flink's:
//
//   - an IllegalConfigurationException, wrapping ErrIllegalConfiguration,
//     for sizes that cannot be read or do not add up. Its message starts,
//     as in Flink, with "TaskManager memory configuration failed: ";
//   - a fraction, CPU core count or slot count that does not parse: "Could
//     not parse value '<text>' for key '<key>'." (Flink's
//     IllegalArgumentException; it does not wrap ErrIllegalConfiguration);
//   - sizes so large that their sum overflows 64 bits: "long overflow",
//     wrapping configuration.ErrArithmetic.
func ProcessSpecFromConfig(config map[string]string) (spec TaskExecutorProcessSpec, err error) {
	conf := configuration.Configuration(config)

	// MemorySize arithmetic panics on overflow, where Flink's throws an
	// ArithmeticException out of processSpecFromConfig. Turn that panic
	// back into the error Flink would have thrown; let any other through.
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok && errors.Is(e, configuration.ErrArithmetic) {
				spec, err = TaskExecutorProcessSpec{}, e
				return
			}
			panic(r)
		}
	}()

	spec, err = createMemoryProcessSpec(conf)
	if err != nil && isIllegalConfiguration(err) {
		return TaskExecutorProcessSpec{}, configuration.NewIllegalConfigurationError(
			"TaskManager memory configuration failed: "+err.Error(), err)
	}
	return spec, err
}

// createMemoryProcessSpec derives the memory, then the CPU cores and the
// slots, in Flink's order: a configuration wrong in both ways reports its
// memory first.
func createMemoryProcessSpec(conf configuration.Configuration) (TaskExecutorProcessSpec, error) {
	flinkMemory, jvm, err := memoryProcessSpecFromConfig(conf)
	if err != nil {
		return TaskExecutorProcessSpec{}, err
	}
	cpuCores, err := CPUCoresWithFallback(conf, -1.0)
	if err != nil {
		return TaskExecutorProcessSpec{}, err
	}
	numSlots, err := configuration.Get(conf, configuration.NumTaskSlots)
	if err != nil {
		return TaskExecutorProcessSpec{}, err
	}
	return TaskExecutorProcessSpec{
		CPUCores:             cpuCores,
		FrameworkHeapSize:    flinkMemory.frameworkHeap,
		FrameworkOffHeapSize: flinkMemory.frameworkOffHeap,
		TaskHeapSize:         flinkMemory.taskHeap,
		TaskOffHeapSize:      flinkMemory.taskOffHeap,
		NetworkMemSize:       flinkMemory.network,
		ManagedMemorySize:    flinkMemory.managed,
		JVMMetaspaceSize:     jvm.metaspace,
		JVMOverheadSize:      jvm.overhead,
		NumSlots:             numSlots,
	}, nil
}

// CPUCoresWithFallback returns a TaskManager's CPU cores as Flink's
// TaskExecutorProcessUtils#getCpuCoresWithFallback does: taskmanager.cpu.cores
// if configured; else fallback if it is positive (YARN and Kubernetes pass
// their container's cores); else the number of slots,
// taskmanager.numberOfTaskSlots (default 1), which is what a standalone
// TaskManager uses. Pass a fallback ≤ 0 for standalone.
//
// A result that is not positive is an IllegalConfigurationException:
// "TaskExecutors need to be started with a positive number of CPU cores.
// Please configure taskmanager.cpu.cores accordingly."
func CPUCoresWithFallback(config map[string]string, fallback float64) (float64, error) {
	conf := configuration.Configuration(config)

	var cpuCores float64
	switch {
	case conf.Contains(configuration.CPUCores):
		cores, err := configuration.Get(conf, configuration.CPUCores)
		if err != nil {
			return 0, err
		}
		cpuCores = cores
	case fallback > 0.0:
		cpuCores = fallback
	default:
		slots, err := configuration.Get(conf, configuration.NumTaskSlots)
		if err != nil {
			return 0, err
		}
		cpuCores = float64(slots)
	}

	// Flink checks cpuCores <= 0; NaN and infinities, which Flink's
	// CPUResource then rejects on its own, are refused here with the same
	// message.
	if !(cpuCores > 0) || math.IsInf(cpuCores, 1) {
		return 0, illegalConfiguration(
			"TaskExecutors need to be started with a positive number of CPU cores. Please configure " +
				configuration.CPUCores.Key() + " accordingly.")
	}
	return cpuCores, nil
}

// isIllegalConfiguration reports whether err is an IllegalConfigurationException.
func isIllegalConfiguration(err error) bool {
	return errors.Is(err, ErrIllegalConfiguration)
}
