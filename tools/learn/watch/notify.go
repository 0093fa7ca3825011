package watch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/fsnotify/fsnotify"
)

// errInotifyUnavailable marks the errors after which Run polls instead:
// inotify cannot be set up here (fsnotify.NewWatcher failed), or the
// per-user limit on watches (fs.inotify.max_user_watches) was reached.
var errInotifyUnavailable = errors.New("inotify unavailable")

// notifier is the source built on inotify through fsnotify. inotify
// watches one directory, not a tree, so the notifier adds a watch on every
// directory below the roots, and on each new directory when its CREATE
// arrives.
//
// Its fields belong to the goroutine that calls run (fsnotify's own
// goroutine only fills w.Events and w.Errors).
type notifier struct {
	w       *fsnotify.Watcher
	cfg     Config                 // Roots, Matters, and PollInterval for a fallback
	add     func(dir string) error // w.Add; a test makes it fail as a full watch limit does
	watched map[string]bool        // the directories that have a watch
}

// newNotifier opens an inotify instance. It watches nothing yet: call
// watchTrees.
func newNotifier(cfg Config) (*notifier, error) {
	w, err := fsnotify.NewWatcher()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errInotifyUnavailable, err)
	}
	return &notifier{w: w, cfg: cfg, add: w.Add, watched: map[string]bool{}}, nil
}

// watchTrees adds a watch on every directory of the trees. It fails with
// errInotifyUnavailable when the watch limit is reached.
func (n *notifier) watchTrees() error {
	for _, root := range n.cfg.Roots {
		if _, err := n.watchTree(root); err != nil {
			return err
		}
	}
	return nil
}

// watchTree adds a watch on dir and on every directory below it, and
// returns the files in them that matter. A new directory can arrive with
// files in it already (a package moved into the tree, or files written
// before its watch was added), and they changed as far as any run knows.
//
// After the watch limit was reached it still returns every file that
// matters, with an error that wraps errInotifyUnavailable.
func (n *notifier) watchTree(dir string) ([]string, error) {
	var files []string
	var unavailable error
	err := walkTree(dir, func(path string, d fs.DirEntry) error {
		if !d.IsDir() {
			if n.cfg.Matters(path) {
				files = append(files, path)
			}
			return nil
		}
		if unavailable != nil {
			return nil
		}
		if err := n.add(path); err != nil {
			if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.ENOMEM) {
				unavailable = fmt.Errorf("%w: watch %s: %w", errInotifyUnavailable, path, err)
			}
			return nil // removed meanwhile, or no permission: nothing to watch
		}
		n.watched[path] = true
		return nil
	})
	if unavailable != nil {
		return files, unavailable
	}
	return files, err
}

// run sends the paths that changed until ctx is done. If the watch limit
// is reached on a new directory, it closes the inotify instance and goes on
// polling. It fails if inotify reports an error other than a lost event.
func (n *notifier) run(ctx context.Context, changes chan<- string) error {
	defer n.w.Close()
	for {
		var changed []string
		var err error
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-n.w.Events:
			if !ok {
				return nil // closed, which only run does
			}
			changed, err = n.handle(ev)
		case werr, ok := <-n.w.Errors:
			if !ok {
				return nil
			}
			if !errors.Is(werr, fsnotify.ErrEventOverflow) {
				return fmt.Errorf("inotify: %w", werr)
			}
			changed, err = n.overflowed()
		}

		for _, path := range changed {
			if !send(ctx, changes, path) {
				return nil
			}
		}
		if err != nil { // errInotifyUnavailable: the watch limit
			n.w.Close()
			p := newPoller(n.cfg.Roots, n.cfg.Matters, n.cfg.PollInterval) // changes count from here
			n.cfg.Logger.Warn("Stopped watching with inotify; polling instead.",
				"reason", err, "interval", n.cfg.PollInterval)
			return p.run(ctx, changes)
		}
	}
}

// handle turns one inotify event into the paths that changed.
func (n *notifier) handle(ev fsnotify.Event) ([]string, error) {
	// A new directory: watch it, and all that is already in it.
	if ev.Has(fsnotify.Create) {
		if info, err := os.Lstat(ev.Name); err == nil && info.IsDir() {
			if isDotDir(info.Name()) {
				return nil, nil
			}
			files, err := n.watchTree(ev.Name)
			if !errors.Is(err, errInotifyUnavailable) {
				err = nil // it vanished again: nothing to watch
			}
			return files, err
		}
	}
	// A watched directory removed or moved away: the packages in it are
	// gone. A moved directory keeps its watches in the kernel, under the
	// old names, so remove them; if it moved within the trees, its CREATE
	// under the new name follows and adds them again.
	if n.watched[ev.Name] && ev.Has(fsnotify.Remove|fsnotify.Rename) {
		n.unwatchTree(ev.Name)
		return []string{ev.Name}, nil
	}
	if n.cfg.Matters(ev.Name) {
		return []string{ev.Name}, nil
	}
	return nil, nil
}

// unwatchTree removes the watches on dir and every directory below it.
func (n *notifier) unwatchTree(dir string) {
	for d := range n.watched {
		if d == dir || strings.HasPrefix(d, dir+string(filepath.Separator)) {
			_ = n.w.Remove(d) // often gone already, with the directory
			delete(n.watched, d)
		}
	}
}

// overflowed handles inotify's queue overflow: events were lost, so any
// file may have changed and new directories may lack a watch. It watches
// the trees again and returns the roots as the paths that changed.
func (n *notifier) overflowed() ([]string, error) {
	for _, root := range n.cfg.Roots {
		if _, err := n.watchTree(root); errors.Is(err, errInotifyUnavailable) {
			return n.cfg.Roots, err
		}
	}
	return n.cfg.Roots, nil
}
