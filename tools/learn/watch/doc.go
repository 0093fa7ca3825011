// Package watch re-runs an exercise's check every time the learner saves a
// file. It is the loop behind `learn watch`: watch the trees of runtime/
// and exercises/, wait until a save is over, run the check, and start over.
// It is course tooling, not part of the runtime that mirrors Flink.
//
// The caller needs one function:
//
//	err := watch.Run(ctx, watch.Config{Roots: []string{"runtime", "exercises"}}, check)
//
// Run calls check(ctx, changed) once per save (or burst of saves), with the
// paths that changed, until ctx ends.
//
// # The pieces
//
// Two kinds of code meet in Run, and they are kept apart:
//
//	source                      debouncer                      run
//	(notifier or poller)  ──►   (the decisions: when to  ──►   (the caller's check,
//	one changed path at a       start a run, when to           on a goroutine that
//	time, on a channel          cancel one)                    Run waits for)
//
// A source only reports which files changed. The notifier does it with
// inotify (through github.com/fsnotify/fsnotify); the poller walks the
// trees on a timer. Each runs on a goroutine of its own and sends paths on
// an unbuffered channel.
//
// The debouncer only decides. It receives paths, runs timers, starts and
// cancels runs, and knows nothing about files. Its tests feed it paths
// through a channel inside a synctest bubble, so they read like a script:
// "a.go at 0, b.go at 1 s; want a run at 150 ms, cancelled at 1 s, and a run
// at 1.15 s with a.go and b.go".
//
// # The timeline of a save
//
// One save is several events. An editor that writes the file in place
// makes a CREATE (if the file is new) and up to five WRITEs;
// one that writes a temp file and renames it makes a CREATE of the real
// name, with events for the temp file that do not matter. So a run starts
// only when the trees have been quiet for Config.Debounce (150 ms):
//
//	CREATE a.go   WRITE a.go ×5          run(a.go) starts
//	──┼───────────┼┼┼┼┼──────────────────────┼────────────────►
//	  0           1–5 ms     ◄── 150 ms ──► 155 ms
//
// A save while a run is in progress makes that run's answer stale: the
// check looked at the old file. The debouncer cancels the run's ctx (its
// cause is ErrNewerChange), waits for run to return, and starts the next
// run once the debounce from the newest event has passed, never before the
// cancelled run returned. Runs never overlap. The next run is given the
// cancelled run's paths too, because no run has seen them through:
//
//	a.go          run(a.go)     b.go: cancel        run(a.go, b.go)
//	──┼──────────────┼────────────┼─────────────────────┼──────►
//	  0            150 ms        1 s                  1.15 s
//
// # What counts as a change
//
// Config.Matters decides, file by file; DefaultMatters counts .go, .yaml,
// .txt and .md files, and every file below a testdata directory (golden
// files and fuzz seeds). It never counts dot-files and the temp and backup
// files of editors (name~, .name.swp, #name#, Vim's 4913, ...). Directories
// whose names begin with a dot (.git, .idea, .cache) are never entered, by
// either source. A new modification time alone counts too, so `touch a.go`
// checks again.
//
// # inotify watches directories, not trees
//
// An inotify watch reports what happens to the entries of one directory.
// The notifier therefore adds a watch on every directory below the roots
// when Run starts, and on each new directory when the CREATE for it
// arrives. Files can be written into a new directory before its watch
// exists (mkdir -p pkg && cp ... pkg/), so the notifier also reports every
// file that matters that it finds while adding the new watches.
//
// A watched directory that is removed or moved away is reported by its own
// path, because the packages in it are gone. The kernel keeps the watches
// of a moved directory, under names that are now wrong, so the notifier
// removes them; if the directory moved within the trees, the CREATE of its
// new name follows and it is watched again under that name.
//
// If inotify loses events (its queue overflowed), any file may have
// changed: the notifier watches the trees again and reports the roots.
//
// # Polling
//
// Where inotify is unavailable, Run polls: fsnotify.NewWatcher fails, or
// the kernel refuses a watch because the per-user limit
// (fs.inotify.max_user_watches) is reached, at start or later when a new
// directory arrives. Run logs a warning through Config.Logger and goes on
// with the poller. Config.Poll asks for the poller from the start, for
// network and shared filesystems, where inotify does not see what the
// other side writes.
//
// Every Config.PollInterval (500 ms) the poller walks the trees and
// compares each file that matters with the previous walk: a new file, a
// missing one, or another size or modification time is a change. The same
// debouncer follows, so a change is run between 150 ms and 650 ms after it
// was saved. The walk runs on the poller's goroutine between two waits on a
// timer, which is what lets a synctest bubble drive it on the fake clock.
//
// # Goroutines
//
//   - Run's goroutine runs the debouncer's loop, which alone owns the
//     pending paths, the debounce timer and the run in progress.
//   - The source runs on a goroutine Run starts; the notifier's fields
//     belong to it. fsnotify adds one goroutine of its own that reads the
//     inotify file.
//   - Each run is called on a new goroutine, one at a time; Run waits for
//     the last one before it returns. run may call the cancel function of
//     Run's ctx to stop watching.
//
// # Limits
//
//   - The poller misses a save that keeps the file's size and comes within
//     the filesystem's timestamp granularity (a few milliseconds) of the
//     previous save, when a scan fell between the two. A person saving by
//     hand is never that quick; the next save is seen anyway.
//   - When the notifier turns to polling, a file written between the
//     refused watch and the poller's first walk is seen only when it
//     changes again.
//   - Symbolic links are not followed, and a root may not be one.
//   - A run that writes files that matter below the roots starts itself
//     again.
//
// With inotify, the time from a save to the start of run is the debounce
// plus about a millisecond (150.6–151.8 ms over twenty saves, measured on a
// two-core Linux machine).
package watch
