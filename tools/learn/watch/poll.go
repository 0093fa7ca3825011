package watch

import (
	"context"
	"io/fs"
	"slices"
	"time"
)

// poller is the source used where inotify is unavailable, or when
// Config.Poll asks for it: every interval it walks the trees and compares
// the size and modification time of each file that matters with what it
// saw the walk before.
//
// Each scan runs synchronously on the poller's goroutine, between two
// waits on a timer. That keeps it testable inside a synctest bubble: the
// goroutine is busy while it scans and durably blocked on the fake clock
// otherwise.
type poller struct {
	roots    []string
	matters  func(path string) bool
	interval time.Duration
	seen     map[string]stamp // the files that matter, as of the last scan
}

// stamp is what the poller compares. A save that keeps the size and lands
// within the filesystem's timestamp granularity of the previous one (a few
// milliseconds on Linux) goes unseen, which a person typing cannot do.
type stamp struct {
	size    int64
	modTime time.Time
}

// newPoller returns a poller whose first scan, the baseline, has been
// done: changes count from now.
func newPoller(roots []string, matters func(string) bool, interval time.Duration) *poller {
	p := &poller{roots: roots, matters: matters, interval: interval}
	p.scan()
	return p
}

// run scans every interval and sends the changed paths until ctx is done.
// It never fails.
func (p *poller) run(ctx context.Context, changes chan<- string) error {
	tick := time.NewTimer(p.interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		for _, path := range p.scan() {
			if !send(ctx, changes, path) {
				return nil
			}
		}
		tick.Reset(p.interval) // from the end of the scan: a slow scan never runs back to back
	}
}

// scan walks the trees and returns, sorted, the files that matter and
// appeared, disappeared, or changed size or modification time since the
// previous scan.
func (p *poller) scan() []string {
	now := make(map[string]stamp, len(p.seen))
	for _, root := range p.roots {
		// A root that is gone has no files: they all count as removed.
		_ = walkTree(root, func(path string, d fs.DirEntry) error {
			if d.IsDir() || !p.matters(path) {
				return nil
			}
			info, err := d.Info()
			if err != nil {
				return nil // removed since the directory was read
			}
			now[path] = stamp{size: info.Size(), modTime: info.ModTime()}
			return nil
		})
	}

	var changed []string
	for path, s := range now {
		if old, ok := p.seen[path]; !ok || old.size != s.size || !old.modTime.Equal(s.modTime) {
			changed = append(changed, path)
		}
	}
	for path := range p.seen {
		if _, ok := now[path]; !ok {
			changed = append(changed, path)
		}
	}
	p.seen = now
	slices.Sort(changed)
	return changed
}

// send hands one changed path to the debouncer, unless ctx ends first.
func send(ctx context.Context, changes chan<- string, path string) bool {
	select {
	case changes <- path:
		return true
	case <-ctx.Done():
		return false
	}
}
