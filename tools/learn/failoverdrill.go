package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"flinklab/tools/learn/diagnose"
	"flinklab/tools/learn/exercise"
)

// A failover drill (diagnosis.of: failover) shows the logs of a cluster of
// processes, two JobManagers and two TaskManagers on a real ZooKeeper,
// after something ended its leader's leadership, and asks what it was,
// whose, and the line that proves it. Its producer is
// exercises/internal/drill.ProduceFailover; its spec names the incident
// (spec.failover), and its key (solutions/dNN/drill.yaml) what the logs
// must show of it.

// failoverNone is the spec.failover of the run with nothing happening to
// the leader (exercises/internal/drill.FailoverNone), which verify
// compares a failover drill with.
const failoverNone = "none"

// drillFailoverKey is failover drill e's answer.
func drillFailoverKey(e *exercise.Exercise) (diagnose.FailoverKey, error) {
	if e.Drill.Key == nil {
		return diagnose.FailoverKey{}, fmt.Errorf("%s: no key", exercise.DrillFile(e.ID))
	}
	key, err := diagnose.NewFailoverKey(e.Drill.Key.Cause, e.Drill.Key.Process)
	if err != nil {
		return key, fmt.Errorf("%s: %w", exercise.DrillFile(e.ID), err)
	}
	return key, nil
}

// gradeFailoverDrill is gradeDrill for a failover drill.
func gradeFailoverDrill(e *exercise.Exercise, logs diagnose.Logs, data []byte) (v drillVerdict, answerErr, err error) {
	answer, answerErr := diagnose.ParseFailoverAnswer(data)
	if answerErr != nil {
		return nil, answerErr, nil
	}
	key, err := drillFailoverKey(e)
	if err != nil {
		return nil, nil, err
	}
	grade := diagnose.GradeFailover(key, logs, answer)
	return grade, nil, grade.Err
}

// failoverSolution says what ended the leadership, in the words of
// package hatrace, quotes where the lines that prove it are in the
// learner's logs, and points at the walkthrough.
func (c *course) failoverSolution(e *exercise.Exercise, out io.Writer) error {
	key, err := drillFailoverKey(e)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "%s: %s, of %s.\n\n", e.ID, key.Cause, key.Process)
	if logs, err := diagnose.LoadLogs(c.drillPath(e)); err == nil {
		if cause, ok := logs.Explain(); ok {
			fmt.Fprintf(out, "%s\n\nWhere those lines are in your logs:\n", cause)
			for _, r := range logs.ProofOf(cause) {
				printRecord(out, r)
			}
		}
	}
	fmt.Fprintf(out, "Which lines to read, in which order, and what Flink does next: solutions/%s/walkthrough.md\n", e.ID)
	return nil
}

// failoverJudge proves a failover drill honest (diagnose.CheckFailoverHonest):
// two runs must show the key's cause, and the run with nothing happening
// to the leader none.
func failoverJudge(e *exercise.Exercise) (drillJudge, error) {
	key, err := drillFailoverKey(e)
	if err != nil {
		return drillJudge{}, err
	}
	return drillJudge{
		honest: func(logs, healthy diagnose.Logs) error { return diagnose.CheckFailoverHonest(key, logs, healthy) },
		// Both runs must show the cause, honest says; how it ends is what
		// proves it, which must not depend on the run either: the loggers
		// of the lines that tell it apart.
		outcome: func(_ string, logs diagnose.Logs) (string, error) {
			cause, _ := logs.Explain()
			var loggers []string
			for _, l := range cause.Proof {
				if !l.Context && !slices.Contains(loggers, l.Logger) {
					loggers = append(loggers, l.Logger)
				}
			}
			slices.Sort(loggers)
			return fmt.Sprintf("%s of %s, proved by lines of %s", cause.Kind, cause.Process, strings.Join(loggers, " and ")), nil
		},
		summary: func(outcome string) string {
			return fmt.Sprintf("two runs on real processes show %s (no grant of the leadership), name no incident, "+
				"and a run with nothing happening to the leader shows no cause", outcome)
		},
	}, nil
}
