package clusterframework

import (
	"strings"

	"flinklab/runtime/configuration"
)

// This file is Flink's TaskExecutorFlinkMemoryUtils (package
// org.apache.flink.runtime.util.config.memory.taskmanager): how Total Flink
// Memory splits into a TaskManager's six parts, or adds up from them.

// taskExecutorFlinkMemory is Flink's TaskExecutorFlinkMemory: the six parts
// of Total Flink Memory.
type taskExecutorFlinkMemory struct {
	frameworkHeap    configuration.MemorySize
	frameworkOffHeap configuration.MemorySize
	taskHeap         configuration.MemorySize
	taskOffHeap      configuration.MemorySize
	network          configuration.MemorySize
	managed          configuration.MemorySize
}

func (f taskExecutorFlinkMemory) totalFlinkMemorySize() configuration.MemorySize {
	return f.frameworkHeap.Add(f.frameworkOffHeap).Add(f.taskHeap).Add(f.taskOffHeap).Add(f.network).Add(f.managed)
}

// deriveFromRequiredFineGrainedOptions adds Total Flink Memory up from its
// parts, task heap and managed memory being configured. Network memory is
// the one part left to derive:
//
//   - if Total Flink Memory is configured too, network is what is left of
//     it, and must lie in its range;
//   - otherwise network is chosen to be its fraction of the total it
//     makes: network = (all other parts) × f/(1-f), capped to its range.
func deriveFromRequiredFineGrainedOptions(conf configuration.Configuration) (taskExecutorFlinkMemory, error) {
	taskHeapMemorySize, err := getMemorySizeFromConfig(conf, configuration.TaskHeapMemory)
	if err != nil {
		return taskExecutorFlinkMemory{}, err
	}
	managedMemorySize, err := getMemorySizeFromConfig(conf, configuration.ManagedMemorySize)
	if err != nil {
		return taskExecutorFlinkMemory{}, err
	}
	frameworkHeapMemorySize, frameworkOffHeapMemorySize, taskOffHeapMemorySize, err := getFrameworkAndTaskOffHeapSizes(conf)
	if err != nil {
		return taskExecutorFlinkMemory{}, err
	}

	totalFlinkExcludeNetworkMemorySize := frameworkHeapMemorySize.
		Add(frameworkOffHeapMemorySize).
		Add(taskHeapMemorySize).
		Add(taskOffHeapMemorySize).
		Add(managedMemorySize)

	var networkMemorySize configuration.MemorySize
	if conf.Contains(configuration.TotalFlinkMemory) {
		// Derive network memory from Total Flink Memory, and check it
		// against network min/max.
		totalFlinkMemorySize, err := getMemorySizeFromConfig(conf, configuration.TotalFlinkMemory)
		if err != nil {
			return taskExecutorFlinkMemory{}, err
		}
		if totalFlinkExcludeNetworkMemorySize > totalFlinkMemorySize {
			return taskExecutorFlinkMemory{}, illegalConfiguration(
				"Sum of configured Framework Heap Memory (" + frameworkHeapMemorySize.ToHumanReadableString() +
					"), Framework Off-Heap Memory (" + frameworkOffHeapMemorySize.ToHumanReadableString() +
					"), Task Heap Memory (" + taskHeapMemorySize.ToHumanReadableString() +
					"), Task Off-Heap Memory (" + taskOffHeapMemorySize.ToHumanReadableString() +
					") and Managed Memory (" + managedMemorySize.ToHumanReadableString() +
					") exceed configured Total Flink Memory (" + totalFlinkMemorySize.ToHumanReadableString() + ").")
		}
		networkMemorySize = totalFlinkMemorySize.Subtract(totalFlinkExcludeNetworkMemorySize)
		if err := sanityCheckNetworkMemoryWithExplicitlySetTotalFlinkAndHeapMemory(conf, networkMemorySize); err != nil {
			return taskExecutorFlinkMemory{}, err
		}
	} else {
		// Derive network memory from its own options.
		networkRange, err := getNetworkMemoryRangeFraction(conf)
		if err != nil {
			return taskExecutorFlinkMemory{}, err
		}
		networkMemorySize = deriveWithInverseFraction("network memory", totalFlinkExcludeNetworkMemorySize, networkRange)
	}

	flinkMemory := taskExecutorFlinkMemory{
		frameworkHeap:    frameworkHeapMemorySize,
		frameworkOffHeap: frameworkOffHeapMemorySize,
		taskHeap:         taskHeapMemorySize,
		taskOffHeap:      taskOffHeapMemorySize,
		network:          networkMemorySize,
		managed:          managedMemorySize,
	}
	if err := sanityCheckTotalFlinkMemory(conf, flinkMemory); err != nil {
		return taskExecutorFlinkMemory{}, err
	}
	return flinkMemory, nil
}

// deriveFromTotalFlinkMemory splits a known Total Flink Memory (configured,
// or left of Total Process Memory) into its parts. Framework heap,
// framework off-heap and task off-heap have sizes (128m, 128m, 0); managed
// memory is its size if configured, else its fraction (0.4) of the total.
// Then:
//
//   - if task heap is configured, network is what is left, and must lie
//     in its range;
//   - otherwise network is its fraction (0.1) of the total, capped to its
//     range, and task heap is what is left. This is the default case:
//     for 1728m of process memory, task heap is
//     1280m − 128m − 128m − 0 − 512m − 128m ≈ 384m.
func deriveFromTotalFlinkMemory(conf configuration.Configuration, totalFlinkMemorySize configuration.MemorySize) (taskExecutorFlinkMemory, error) {
	frameworkHeapMemorySize, frameworkOffHeapMemorySize, taskOffHeapMemorySize, err := getFrameworkAndTaskOffHeapSizes(conf)
	if err != nil {
		return taskExecutorFlinkMemory{}, err
	}
	managedMemorySize, err := deriveManagedMemoryAbsoluteOrWithFraction(conf, totalFlinkMemorySize)
	if err != nil {
		return taskExecutorFlinkMemory{}, err
	}

	var taskHeapMemorySize, networkMemorySize configuration.MemorySize
	if conf.Contains(configuration.TaskHeapMemory) {
		// Task heap is configured: network memory is the rest.
		taskHeapMemorySize, networkMemorySize, err = deriveNetworkMemoryWithExplicitTaskHeap(conf, totalFlinkMemorySize,
			frameworkHeapMemorySize, frameworkOffHeapMemorySize, taskOffHeapMemorySize, managedMemorySize)
		if err != nil {
			return taskExecutorFlinkMemory{}, err
		}
	} else {
		// Task heap is not configured: derive network memory, leave the
		// rest to task heap.
		networkRange, err := getNetworkMemoryRangeFraction(conf)
		if err != nil {
			return taskExecutorFlinkMemory{}, err
		}
		networkMemorySize = deriveWithFraction("network memory", totalFlinkMemorySize, networkRange)
		totalFlinkExcludeTaskHeapMemorySize := frameworkHeapMemorySize.
			Add(frameworkOffHeapMemorySize).
			Add(taskOffHeapMemorySize).
			Add(managedMemorySize).
			Add(networkMemorySize)
		if totalFlinkExcludeTaskHeapMemorySize > totalFlinkMemorySize {
			return taskExecutorFlinkMemory{}, sumExceedsTotalFlinkMemory(totalFlinkMemorySize,
				namedSize{"Framework Heap Memory", frameworkHeapMemorySize}, namedSize{"Framework Off-Heap Memory", frameworkOffHeapMemorySize},
				namedSize{"Task Off-Heap Memory", taskOffHeapMemorySize}, namedSize{"Managed Memory", managedMemorySize},
				namedSize{"Network Memory", networkMemorySize})
		}
		taskHeapMemorySize = totalFlinkMemorySize.Subtract(totalFlinkExcludeTaskHeapMemorySize)
	}

	flinkMemory := taskExecutorFlinkMemory{
		frameworkHeap:    frameworkHeapMemorySize,
		frameworkOffHeap: frameworkOffHeapMemorySize,
		taskHeap:         taskHeapMemorySize,
		taskOffHeap:      taskOffHeapMemorySize,
		network:          networkMemorySize,
		managed:          managedMemorySize,
	}
	if err := sanityCheckTotalFlinkMemory(conf, flinkMemory); err != nil {
		return taskExecutorFlinkMemory{}, err
	}
	return flinkMemory, nil
}

// deriveNetworkMemoryWithExplicitTaskHeap is the branch of
// deriveFromTotalFlinkMemory for a configured task heap: network memory is
// what the other parts leave of the total, and must lie in its range.
func deriveNetworkMemoryWithExplicitTaskHeap(conf configuration.Configuration, totalFlinkMemorySize,
	frameworkHeapMemorySize, frameworkOffHeapMemorySize, taskOffHeapMemorySize, managedMemorySize configuration.MemorySize,
) (taskHeapMemorySize, networkMemorySize configuration.MemorySize, err error) {
	taskHeapMemorySize, err = getMemorySizeFromConfig(conf, configuration.TaskHeapMemory)
	if err != nil {
		return 0, 0, err
	}
	totalFlinkExcludeNetworkMemorySize := frameworkHeapMemorySize.
		Add(frameworkOffHeapMemorySize).
		Add(taskHeapMemorySize).
		Add(taskOffHeapMemorySize).
		Add(managedMemorySize)
	if totalFlinkExcludeNetworkMemorySize > totalFlinkMemorySize {
		return 0, 0, sumExceedsTotalFlinkMemory(totalFlinkMemorySize,
			namedSize{"Framework Heap Memory", frameworkHeapMemorySize}, namedSize{"Framework Off-Heap Memory", frameworkOffHeapMemorySize},
			namedSize{"Task Heap Memory", taskHeapMemorySize}, namedSize{"Task Off-Heap Memory", taskOffHeapMemorySize},
			namedSize{"Managed Memory", managedMemorySize})
	}
	networkMemorySize = totalFlinkMemorySize.Subtract(totalFlinkExcludeNetworkMemorySize)
	if err := sanityCheckNetworkMemoryWithExplicitlySetTotalFlinkAndHeapMemory(conf, networkMemorySize); err != nil {
		return 0, 0, err
	}
	return taskHeapMemorySize, networkMemorySize, nil
}

// namedSize is one part of the memory, as an error message names it.
type namedSize struct {
	name string
	size configuration.MemorySize
}

// sumExceedsTotalFlinkMemory is Flink's IllegalConfigurationException for
// configured parts that add up to more than the total Flink memory:
// "Sum of configured Framework Heap Memory (…), … and Network Memory (…)
// exceed configured Total Flink Memory (…)."
func sumExceedsTotalFlinkMemory(totalFlinkMemorySize configuration.MemorySize, parts ...namedSize) error {
	named := make([]string, len(parts))
	for i, p := range parts {
		named[i] = p.name + " (" + p.size.ToHumanReadableString() + ")"
	}
	return illegalConfiguration("Sum of configured " + strings.Join(named[:len(named)-1], ", ") + " and " + named[len(named)-1] +
		" exceed configured Total Flink Memory (" + totalFlinkMemorySize.ToHumanReadableString() + ").")
}

// getFrameworkAndTaskOffHeapSizes reads the three parts that always have a
// size: framework heap, framework off-heap and task off-heap.
func getFrameworkAndTaskOffHeapSizes(conf configuration.Configuration) (frameworkHeap, frameworkOffHeap, taskOffHeap configuration.MemorySize, err error) {
	if frameworkHeap, err = getMemorySizeFromConfig(conf, configuration.FrameworkHeapMemory); err != nil {
		return 0, 0, 0, err
	}
	if frameworkOffHeap, err = getMemorySizeFromConfig(conf, configuration.FrameworkOffHeapMemory); err != nil {
		return 0, 0, 0, err
	}
	if taskOffHeap, err = getMemorySizeFromConfig(conf, configuration.TaskOffHeapMemory); err != nil {
		return 0, 0, 0, err
	}
	return frameworkHeap, frameworkOffHeap, taskOffHeap, nil
}

// deriveManagedMemoryAbsoluteOrWithFraction: managed memory is its size if
// configured, else its fraction of base, with no cap ([0, MaxMemorySize]).
func deriveManagedMemoryAbsoluteOrWithFraction(conf configuration.Configuration, base configuration.MemorySize) (configuration.MemorySize, error) {
	if conf.Contains(configuration.ManagedMemorySize) {
		return getMemorySizeFromConfig(conf, configuration.ManagedMemorySize)
	}
	managedRange, err := getRangeFraction(0, configuration.MaxMemorySize, configuration.ManagedMemoryFraction, conf)
	if err != nil {
		return 0, err
	}
	return deriveWithFraction("managed memory", base, managedRange), nil
}

func getNetworkMemoryRangeFraction(conf configuration.Configuration) (rangeFraction, error) {
	minSize, err := getMemorySizeFromConfig(conf, configuration.NetworkMemoryMin)
	if err != nil {
		return rangeFraction{}, err
	}
	maxSize, err := getMemorySizeFromConfig(conf, configuration.NetworkMemoryMax)
	if err != nil {
		return rangeFraction{}, err
	}
	return getRangeFraction(minSize, maxSize, configuration.NetworkMemoryFraction, conf)
}

// sanityCheckTotalFlinkMemory checks that the parts add up to a configured
// Total Flink Memory. Every way of deriving the parts above makes them add
// up; in Flink the check can fail only with the legacy
// taskmanager.network.numberOfBuffers option, which we do not read.
func sanityCheckTotalFlinkMemory(conf configuration.Configuration, flinkMemory taskExecutorFlinkMemory) error {
	if !conf.Contains(configuration.TotalFlinkMemory) {
		return nil
	}
	configuredTotalFlinkMemorySize, err := getMemorySizeFromConfig(conf, configuration.TotalFlinkMemory)
	if err != nil {
		return err
	}
	if configuredTotalFlinkMemorySize != flinkMemory.totalFlinkMemorySize() {
		return illegalConfiguration(
			"Configured and Derived Flink internal memory sizes (total " + flinkMemory.totalFlinkMemorySize().ToHumanReadableString() +
				") do not add up to the configured Total Flink Memory size (" + configuredTotalFlinkMemorySize.ToHumanReadableString() +
				"). Configured and Derived Flink internal memory sizes are: " +
				"Framework Heap Memory (" + flinkMemory.frameworkHeap.ToHumanReadableString() +
				"), Framework Off-Heap Memory (" + flinkMemory.frameworkOffHeap.ToHumanReadableString() +
				"), Task Heap Memory (" + flinkMemory.taskHeap.ToHumanReadableString() +
				"), Task Off-Heap Memory (" + flinkMemory.taskOffHeap.ToHumanReadableString() +
				"), Network Memory (" + flinkMemory.network.ToHumanReadableString() +
				"), Managed Memory (" + flinkMemory.managed.ToHumanReadableString() + ").")
	}
	return nil
}

// sanityCheckNetworkMemoryWithExplicitlySetTotalFlinkAndHeapMemory wraps a
// failed network check in a message that says why network memory came out
// as it did.
func sanityCheckNetworkMemoryWithExplicitlySetTotalFlinkAndHeapMemory(conf configuration.Configuration, derivedNetworkMemorySize configuration.MemorySize) error {
	if err := sanityCheckNetworkMemory(conf, derivedNetworkMemorySize); err != nil {
		if !isIllegalConfiguration(err) {
			return err
		}
		return configuration.NewIllegalConfigurationError(
			"If Total Flink, Task Heap and (or) Managed Memory sizes are explicitly configured then "+
				"the Network Memory size is the rest of the Total Flink memory after subtracting all other "+
				"configured types of memory, but the derived Network Memory is inconsistent with its configuration.",
			err)
	}
	return nil
}

// sanityCheckNetworkMemory checks a derived network size against its range.
// Flink also logs, at INFO, when a configured network fraction does not
// match the derived size; we do not log.
func sanityCheckNetworkMemory(conf configuration.Configuration, derivedNetworkMemorySize configuration.MemorySize) error {
	networkRange, err := getNetworkMemoryRangeFraction(conf)
	if err != nil {
		return err
	}
	if derivedNetworkMemorySize > networkRange.maxSize || derivedNetworkMemorySize < networkRange.minSize {
		return illegalConfiguration("Derived Network Memory size (" + derivedNetworkMemorySize.ToHumanReadableString() +
			") is not in configured Network Memory range [" + networkRange.minSize.ToHumanReadableString() +
			", " + networkRange.maxSize.ToHumanReadableString() + "].")
	}
	return nil
}
