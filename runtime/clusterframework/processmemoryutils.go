package clusterframework

import (
	"errors"
	"fmt"

	"flinklab/runtime/configuration"
)

// This file is Flink's ProcessMemoryUtils (package
// org.apache.flink.runtime.util.config.memory), the half of the memory
// model that a JobManager and a TaskManager share: which of the three ways
// of configuring memory is used, and the JVM Metaspace and JVM Overhead
// around Total Flink Memory. The TaskManager's half, the parts of Total
// Flink Memory, is taskexecutorflinkmemoryutils.go. Functions keep Flink's
// names, so that a reader can follow both side by side.

// jvmMetaspaceAndOverhead is Flink's JvmMetaspaceAndOverhead: the two parts
// of Total Process Memory outside Total Flink Memory.
type jvmMetaspaceAndOverhead struct {
	metaspace configuration.MemorySize
	overhead  configuration.MemorySize
}

func (j jvmMetaspaceAndOverhead) totalJvmMetaspaceAndOverheadSize() configuration.MemorySize {
	return j.metaspace.Add(j.overhead)
}

// memoryProcessSpecFromConfig picks the way the memory is configured, in
// Flink's order:
//
//  1. task heap and managed memory both configured (the "fine-grained"
//     options): add up Total Flink Memory from its parts;
//  2. else Total Flink Memory configured: split it into its parts;
//  3. else Total Process Memory configured: take JVM Metaspace and JVM
//     Overhead off it, and split the rest as in 2.
//
// Configuring more than one is allowed, but then they must agree.
func memoryProcessSpecFromConfig(conf configuration.Configuration) (taskExecutorFlinkMemory, jvmMetaspaceAndOverhead, error) {
	switch {
	case conf.Contains(configuration.TaskHeapMemory) && conf.Contains(configuration.ManagedMemorySize):
		return deriveProcessSpecWithExplicitInternalMemory(conf)
	case conf.Contains(configuration.TotalFlinkMemory):
		return deriveProcessSpecWithTotalFlinkMemory(conf)
	case conf.Contains(configuration.TotalProcessMemory):
		return deriveProcessSpecWithTotalProcessMemory(conf)
	}
	return taskExecutorFlinkMemory{}, jvmMetaspaceAndOverhead{}, illegalConfiguration(fmt.Sprintf(
		"Either required fine-grained memory (%s), or Total Flink Memory size (%s), or Total Process Memory size "+
			"(%s) need to be configured explicitly.",
		configuration.TaskHeapMemory.Key()+" and "+configuration.ManagedMemorySize.Key(),
		// Flink formats the options themselves here, not their keys, so
		// the message prints "Key: '...' , default: null (fallback keys: [])".
		configuration.TotalFlinkMemory,
		configuration.TotalProcessMemory))
}

// deriveProcessSpecWithExplicitInternalMemory is way 1: the parts give
// Total Flink Memory; Metaspace and Overhead are added around it.
func deriveProcessSpecWithExplicitInternalMemory(conf configuration.Configuration) (taskExecutorFlinkMemory, jvmMetaspaceAndOverhead, error) {
	flinkMemory, err := deriveFromRequiredFineGrainedOptions(conf)
	if err != nil {
		return taskExecutorFlinkMemory{}, jvmMetaspaceAndOverhead{}, err
	}
	jvm, err := deriveJvmMetaspaceAndOverheadFromTotalFlinkMemory(conf, flinkMemory.totalFlinkMemorySize())
	if err != nil {
		return taskExecutorFlinkMemory{}, jvmMetaspaceAndOverhead{}, err
	}
	return flinkMemory, jvm, nil
}

// deriveProcessSpecWithTotalFlinkMemory is way 2: Total Flink Memory is
// split into its parts; Metaspace and Overhead are added around it.
func deriveProcessSpecWithTotalFlinkMemory(conf configuration.Configuration) (taskExecutorFlinkMemory, jvmMetaspaceAndOverhead, error) {
	totalFlinkMemorySize, err := getMemorySizeFromConfig(conf, configuration.TotalFlinkMemory)
	if err != nil {
		return taskExecutorFlinkMemory{}, jvmMetaspaceAndOverhead{}, err
	}
	flinkMemory, err := deriveFromTotalFlinkMemory(conf, totalFlinkMemorySize)
	if err != nil {
		return taskExecutorFlinkMemory{}, jvmMetaspaceAndOverhead{}, err
	}
	jvm, err := deriveJvmMetaspaceAndOverheadFromTotalFlinkMemory(conf, totalFlinkMemorySize)
	if err != nil {
		return taskExecutorFlinkMemory{}, jvmMetaspaceAndOverhead{}, err
	}
	return flinkMemory, jvm, nil
}

// deriveProcessSpecWithTotalProcessMemory is way 3, the one of the
// distribution's default configuration: Metaspace and Overhead come off
// Total Process Memory first, and what is left is Total Flink Memory.
func deriveProcessSpecWithTotalProcessMemory(conf configuration.Configuration) (taskExecutorFlinkMemory, jvmMetaspaceAndOverhead, error) {
	totalProcessMemorySize, err := getMemorySizeFromConfig(conf, configuration.TotalProcessMemory)
	if err != nil {
		return taskExecutorFlinkMemory{}, jvmMetaspaceAndOverhead{}, err
	}
	jvm, err := deriveJvmMetaspaceAndOverheadWithTotalProcessMemory(conf, totalProcessMemorySize)
	if err != nil {
		return taskExecutorFlinkMemory{}, jvmMetaspaceAndOverhead{}, err
	}
	totalFlinkMemorySize := totalProcessMemorySize.Subtract(jvm.totalJvmMetaspaceAndOverheadSize())
	flinkMemory, err := deriveFromTotalFlinkMemory(conf, totalFlinkMemorySize)
	if err != nil {
		return taskExecutorFlinkMemory{}, jvmMetaspaceAndOverhead{}, err
	}
	return flinkMemory, jvm, nil
}

// deriveJvmMetaspaceAndOverheadWithTotalProcessMemory: Metaspace is its
// size (256m), Overhead its fraction of Total Process Memory (0.1) capped
// to [min, max] (192m, 1g). For 1728m: 0.1 × 1728m is 172.8m, under the
// minimum, so Overhead is 192m.
func deriveJvmMetaspaceAndOverheadWithTotalProcessMemory(conf configuration.Configuration, totalProcessMemorySize configuration.MemorySize) (jvmMetaspaceAndOverhead, error) {
	jvmMetaspaceSize, err := getMemorySizeFromConfig(conf, configuration.JVMMetaspace)
	if err != nil {
		return jvmMetaspaceAndOverhead{}, err
	}
	overheadRange, err := getJvmOverheadRangeFraction(conf)
	if err != nil {
		return jvmMetaspaceAndOverhead{}, err
	}
	jvm := jvmMetaspaceAndOverhead{
		metaspace: jvmMetaspaceSize,
		overhead:  deriveWithFraction("jvm overhead memory", totalProcessMemorySize, overheadRange),
	}

	if jvm.totalJvmMetaspaceAndOverheadSize() > totalProcessMemorySize {
		return jvmMetaspaceAndOverhead{}, illegalConfiguration(
			"Sum of configured JVM Metaspace (" + jvm.metaspace.ToHumanReadableString() +
				") and JVM Overhead (" + jvm.overhead.ToHumanReadableString() +
				") exceed configured Total Process Memory (" + totalProcessMemorySize.ToHumanReadableString() + ").")
	}
	return jvm, nil
}

// deriveJvmMetaspaceAndOverheadFromTotalFlinkMemory works outward from
// Total Flink Memory. If Total Process Memory is configured too, Overhead
// is what is left of it; otherwise Overhead is chosen so that it is its
// fraction of the total it makes: overhead = (flink + metaspace) × f/(1-f).
func deriveJvmMetaspaceAndOverheadFromTotalFlinkMemory(conf configuration.Configuration, totalFlinkMemorySize configuration.MemorySize) (jvmMetaspaceAndOverhead, error) {
	jvmMetaspaceSize, err := getMemorySizeFromConfig(conf, configuration.JVMMetaspace)
	if err != nil {
		return jvmMetaspaceAndOverhead{}, err
	}
	totalFlinkAndJvmMetaspaceSize := totalFlinkMemorySize.Add(jvmMetaspaceSize)

	if conf.Contains(configuration.TotalProcessMemory) {
		jvmOverheadSize, err := deriveJvmOverheadFromTotalFlinkMemoryAndOtherComponents(conf, totalFlinkMemorySize)
		if err != nil {
			return jvmMetaspaceAndOverhead{}, err
		}
		return jvmMetaspaceAndOverhead{metaspace: jvmMetaspaceSize, overhead: jvmOverheadSize}, nil
	}

	overheadRange, err := getJvmOverheadRangeFraction(conf)
	if err != nil {
		return jvmMetaspaceAndOverhead{}, err
	}
	jvm := jvmMetaspaceAndOverhead{
		metaspace: jvmMetaspaceSize,
		overhead:  deriveWithInverseFraction("jvm overhead memory", totalFlinkAndJvmMetaspaceSize, overheadRange),
	}
	if err := sanityCheckTotalProcessMemory(conf, totalFlinkMemorySize, jvm); err != nil {
		return jvmMetaspaceAndOverhead{}, err
	}
	return jvm, nil
}

// deriveJvmOverheadFromTotalFlinkMemoryAndOtherComponents: with both totals
// configured, Overhead is Total Process − Total Flink − Metaspace, and must
// lie in its range.
func deriveJvmOverheadFromTotalFlinkMemoryAndOtherComponents(conf configuration.Configuration, totalFlinkMemorySize configuration.MemorySize) (configuration.MemorySize, error) {
	totalProcessMemorySize, err := getMemorySizeFromConfig(conf, configuration.TotalProcessMemory)
	if err != nil {
		return 0, err
	}
	jvmMetaspaceSize, err := getMemorySizeFromConfig(conf, configuration.JVMMetaspace)
	if err != nil {
		return 0, err
	}
	totalFlinkAndJvmMetaspaceSize := totalFlinkMemorySize.Add(jvmMetaspaceSize)
	if totalProcessMemorySize < totalFlinkAndJvmMetaspaceSize {
		// Two spaces before "(%s)": Flink's text.
		return 0, illegalConfiguration(fmt.Sprintf(
			"The configured Total Process Memory size (%s) is less than the sum of the derived "+
				"Total Flink Memory size (%s) and the configured or default JVM Metaspace size  (%s).",
			totalProcessMemorySize.ToHumanReadableString(),
			totalFlinkMemorySize.ToHumanReadableString(),
			jvmMetaspaceSize.ToHumanReadableString()))
	}
	jvmOverheadSize := totalProcessMemorySize.Subtract(totalFlinkAndJvmMetaspaceSize)
	if err := sanityCheckJvmOverhead(conf, jvmOverheadSize); err != nil {
		return 0, err
	}
	return jvmOverheadSize, nil
}

// sanityCheckJvmOverhead checks a derived Overhead against its range.
// Flink also logs, at INFO, when a configured fraction does not match the
// derived size ("The derived JVM Overhead size (...) does not match the
// configured or default JVM Overhead fraction ..."); we do not log.
func sanityCheckJvmOverhead(conf configuration.Configuration, derivedJvmOverheadSize configuration.MemorySize) error {
	overheadRange, err := getJvmOverheadRangeFraction(conf)
	if err != nil {
		return err
	}
	if derivedJvmOverheadSize > overheadRange.maxSize || derivedJvmOverheadSize < overheadRange.minSize {
		return illegalConfiguration("Derived JVM Overhead size (" + derivedJvmOverheadSize.ToHumanReadableString() +
			") is not in configured JVM Overhead range [" + overheadRange.minSize.ToHumanReadableString() +
			", " + overheadRange.maxSize.ToHumanReadableString() + "].")
	}
	return nil
}

// sanityCheckTotalProcessMemory checks that the derived total equals a
// configured Total Process Memory. Flink calls it only when Total Process
// Memory is not configured, so in Flink 1.17+ the check never fails (the
// case is caught by deriveJvmOverheadFromTotalFlinkMemoryAndOtherComponents);
// it is kept, as in Flink, for the day that changes.
func sanityCheckTotalProcessMemory(conf configuration.Configuration, totalFlinkMemory configuration.MemorySize, jvm jvmMetaspaceAndOverhead) error {
	derivedTotalProcessMemorySize := totalFlinkMemory.Add(jvm.metaspace).Add(jvm.overhead)
	if !conf.Contains(configuration.TotalProcessMemory) {
		return nil
	}
	configuredTotalProcessMemorySize, err := getMemorySizeFromConfig(conf, configuration.TotalProcessMemory)
	if err != nil {
		return err
	}
	if configuredTotalProcessMemorySize != derivedTotalProcessMemorySize {
		return illegalConfiguration(fmt.Sprintf(
			"Configured and Derived memory sizes (total %s) do not add up to the configured Total Process "+
				"Memory size (%s). Configured and Derived memory sizes are: Total Flink Memory (%s), "+
				"JVM Metaspace (%s), JVM Overhead (%s).",
			derivedTotalProcessMemorySize.ToHumanReadableString(),
			configuredTotalProcessMemorySize.ToHumanReadableString(),
			totalFlinkMemory.ToHumanReadableString(),
			jvm.metaspace.ToHumanReadableString(),
			jvm.overhead.ToHumanReadableString()))
	}
	return nil
}

func getJvmOverheadRangeFraction(conf configuration.Configuration) (rangeFraction, error) {
	minSize, err := getMemorySizeFromConfig(conf, configuration.JVMOverheadMin)
	if err != nil {
		return rangeFraction{}, err
	}
	maxSize, err := getMemorySizeFromConfig(conf, configuration.JVMOverheadMax)
	if err != nil {
		return rangeFraction{}, err
	}
	return getRangeFraction(minSize, maxSize, configuration.JVMOverheadFraction, conf)
}

// getMemorySizeFromConfig reads a memory option: its value, or its
// default. Any failure, a value that does not parse or an option that is
// neither set nor has a default, is an IllegalConfigurationException whose
// cause says why.
func getMemorySizeFromConfig(conf configuration.Configuration, option configuration.ConfigOption[configuration.MemorySize]) (configuration.MemorySize, error) {
	size, err := configuration.Get(conf, option)
	if err == nil && !conf.Contains(option) && !option.HasDefaultValue() {
		err = errors.New("The memory option is not set and has no default value.")
	}
	if err != nil {
		return 0, configuration.NewIllegalConfigurationError(
			"Cannot read memory size from config option '"+option.Key()+"'.", err)
	}
	return size, nil
}

// rangeFraction is Flink's RangeFraction: a memory part that is a fraction
// of another, capped to [minSize, maxSize].
type rangeFraction struct {
	minSize  configuration.MemorySize
	maxSize  configuration.MemorySize
	fraction float64
}

// newRangeFraction checks Flink's two preconditions (IllegalArgumentException
// in Flink), in Flink's order.
func newRangeFraction(minSize, maxSize configuration.MemorySize, fraction float64) (rangeFraction, error) {
	if minSize > maxSize {
		return rangeFraction{}, errors.New("min value must be less or equal to max value")
	}
	if !(fraction >= 0 && fraction < 1) {
		return rangeFraction{}, errors.New("fraction must be in range [0, 1)")
	}
	return rangeFraction{minSize: minSize, maxSize: maxSize, fraction: fraction}, nil
}

// getRangeFraction reads a fraction option and pairs it with its range. A
// range with min > max, or a fraction outside [0, 1), is an
// IllegalConfigurationException that prints the option as Flink does:
//
//	Inconsistently configured Key: 'taskmanager.memory.network.fraction' , default: 0.1 (fallback keys: [...]) (0.10000000149011612) and its min (200.000mb (209715200 bytes)), max (50.000mb (52428800 bytes)) value
//
// A fraction that does not parse is Flink's IllegalArgumentException,
// returned as it is.
func getRangeFraction(minSize, maxSize configuration.MemorySize, fractionOption configuration.ConfigOption[float64], conf configuration.Configuration) (rangeFraction, error) {
	fraction, err := configuration.Get(conf, fractionOption)
	if err != nil {
		return rangeFraction{}, err
	}
	rf, err := newRangeFraction(minSize, maxSize, fraction)
	if err != nil {
		return rangeFraction{}, configuration.NewIllegalConfigurationError(fmt.Sprintf(
			"Inconsistently configured %s (%s) and its min (%s), max (%s) value",
			fractionOption,
			configuration.FormatJavaDouble(fraction),
			minSize.ToHumanReadableString(),
			maxSize.ToHumanReadableString()), err)
	}
	return rf, nil
}

// deriveWithFraction returns fraction × base, capped to the range.
func deriveWithFraction(memoryDescription string, base configuration.MemorySize, rf rangeFraction) configuration.MemorySize {
	relative := base.Multiply(rf.fraction)
	return capToMinMax(memoryDescription, relative, rf)
}

// deriveWithInverseFraction returns the size that is the fraction of
// base plus itself: base × f/(1-f), capped to the range. f/(1-f) is
// computed in float64, as Flink computes it in double.
func deriveWithInverseFraction(memoryDescription string, base configuration.MemorySize, rf rangeFraction) configuration.MemorySize {
	relative := base.Multiply(rf.fraction / (1 - rf.fraction))
	return capToMinMax(memoryDescription, relative, rf)
}

// capToMinMax caps a derived size to its range. Flink logs at INFO when it
// caps, e.g. for the default 1728m process size:
//
//	The derived from fraction jvm overhead memory (172.800mb (181193935 bytes)) is less than its min value 192.000mb (201326592 bytes), min value will be used instead
//
// memoryDescription is the name Flink's line uses; we do not log.
func capToMinMax(memoryDescription string, relative configuration.MemorySize, rf rangeFraction) configuration.MemorySize {
	switch {
	case relative > rf.maxSize:
		return rf.maxSize
	case relative < rf.minSize:
		return rf.minSize
	}
	return relative
}

// illegalConfiguration returns an IllegalConfigurationException without a
// cause.
func illegalConfiguration(message string) error {
	return configuration.NewIllegalConfigurationError(message, nil)
}
