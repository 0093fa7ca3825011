// Package logging prints the runtime's slog records the way Flink's
// log4j configuration prints its log lines, so what a learner reads here
// looks like a real JobManager or TaskManager log:
//
//	2026-11-30 10:15:02,417 INFO  StandaloneDispatcher [] - Received JobGraph submission 'numbers' (5e0f…).
//
// Every component logs through a logger named like its Flink class
// (logger.With("logger", "StandaloneDispatcher")); the handler puts that
// name where log4j puts the class, and any other attributes after the
// message.
package logging
