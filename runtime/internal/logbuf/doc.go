// Package logbuf holds the log sink the runtime's tests share: a buffer the
// cluster's goroutines write to while the test reads it, with helpers to
// pick out the records of one component.
//
// It is ours and test-only; Flink's tests use log4j's test appenders for
// the same purpose.
package logbuf
