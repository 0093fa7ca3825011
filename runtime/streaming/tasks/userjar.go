package tasks

import (
	"errors"
	"fmt"
	"strings"

	"flinklab/runtime/client"
	"flinklab/runtime/streaming"
)

// ErrCannotLoadUserClass is wrapped when a task cannot find its program:
// the job jar names another program, or no program of that name is
// registered in this process. The error also wraps
// streaming.ErrClassNotFound and reads like Flink's StreamTaskException:
//
//	Cannot load user class: ClassNotFoundException: wordcount
//	ClassLoader info: URL ClassLoader:
//	    file: '/tmp/…/blob_p-…' (valid JAR, Program-Class: wordcount)
//	Class not resolvable through given classloader.
var ErrCannotLoadUserClass = errors.New("Cannot load user class")

// ErrCannotInstantiateUserFunction is wrapped when the program is found
// but planning it again fails (Flink: "Cannot instantiate user function.").
var ErrCannotInstantiateUserFunction = errors.New("Cannot instantiate user function.")

// ErrNoUserJar is returned when a streaming task was deployed without a
// job jar: it could not tell which program it runs.
var ErrNoUserJar = errors.New("the task has no job jar: a streaming task needs the jar whose manifest names its program (Program-Class)")

// userJar is the job jar as a task sees it: the program its manifest names
// and its resources. Flink's user-code class loader plays this part.
type userJar interface {
	ProgramClass() string
	Resource(name string) ([]byte, error)
}

// openUserJar opens the job jar at a local path (the BlobCache's copy).
// It is a variable so that the jar format stays behind one function.
var openUserJar = func(path string) (userJar, error) {
	program, err := client.OpenPackagedProgram(path)
	if err != nil {
		return nil, err
	}
	return program, nil
}

// loadUserProgram opens the task's job jar, checks that it holds the
// program the task configuration names, and plans that program again to
// get the StreamGraph whose nodes hold the user's functions. It plans it
// as the runner first did: with the same arguments, parallelism and
// runtime mode, so that a job planned in BATCH gets the operators of BATCH
// (a keyed reduce that emits only final results) on every TaskExecutor.
// This is the Go stand-in for Flink's user-code class loader and the
// deserialization of the operators from the StreamConfig
// (StreamConfig#getStreamOperatorFactory).
func loadUserProgram(jarPaths []string, config *streaming.StreamConfig) (*streaming.StreamGraph, userJar, error) {
	if len(jarPaths) == 0 {
		return nil, nil, ErrNoUserJar
	}
	jarPath := jarPaths[0]
	jar, err := openUserJar(jarPath)
	if err != nil {
		return nil, nil, fmt.Errorf("Library cache could not register the user code libraries: %w", err)
	}

	// The jar must hold the program: a program the jar does not name is a
	// class the user-code class loader cannot find.
	if jar.ProgramClass() != config.ProgramName {
		return nil, nil, cannotLoadUserClass(config.ProgramName, jarPath, jar.ProgramClass(), "")
	}
	graph, err := streaming.PlanProgramInRuntimeMode(config.ProgramName, config.ProgramArgs, config.ProgramParallelism, config.ProgramRuntimeMode)
	if errors.Is(err, streaming.ErrClassNotFound) {
		registered := "registered programs: [" + strings.Join(streaming.RegisteredPrograms(), ", ") + "]"
		return nil, nil, cannotLoadUserClass(config.ProgramName, jarPath, jar.ProgramClass(), registered)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("%w Caused by: %w", ErrCannotInstantiateUserFunction, err)
	}
	return graph, jar, nil
}

// cannotLoadUserClass returns Flink's "Cannot load user class" error.
func cannotLoadUserClass(programName, jarPath, jarProgramClass, registered string) error {
	info := fmt.Sprintf("URL ClassLoader:\n    file: '%s' (valid JAR, Program-Class: %s)", jarPath, jarProgramClass)
	if registered != "" {
		info += "\n    " + registered
	}
	return fmt.Errorf("%w: %w: %s\nClassLoader info: %s\nClass not resolvable through given classloader.",
		ErrCannotLoadUserClass, streaming.ErrClassNotFound, programName, info)
}
