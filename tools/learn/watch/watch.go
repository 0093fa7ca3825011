package watch

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"time"
)

// Defaults for the zero fields of Config.
const (
	// DefaultDebounce is long enough to gather the events of one editor
	// save (a CREATE and up to five WRITEs) and short enough not to be
	// noticed.
	DefaultDebounce = 150 * time.Millisecond
	// DefaultPollInterval is how often the poller scans the trees.
	DefaultPollInterval = 500 * time.Millisecond
)

// ErrNewerChange is the cause of a run's context when a newer change
// cancelled the run: context.Cause(ctx) == ErrNewerChange tells a run that
// is about to report a cancellation that another run follows.
var ErrNewerChange = errors.New("watch: a newer change arrived")

// Config says what Run watches and how.
type Config struct {
	// Roots are the directories watched, each with every directory below
	// it except dot-directories (.git, .idea, ...). There must be at least
	// one, and each must be a directory, not a symbolic link, when Run
	// starts. The changed paths Run reports begin with the root as given,
	// cleaned.
	Roots []string
	// Debounce is how long the trees must be quiet after a change before a
	// run starts. Zero means DefaultDebounce.
	Debounce time.Duration
	// PollInterval is how often the trees are scanned when polling. Zero
	// means DefaultPollInterval.
	PollInterval time.Duration
	// Poll makes Run poll even where inotify works: on network and shared
	// filesystems (NFS, SMB, some container and VM mounts) inotify does not
	// see changes made on the other side.
	Poll bool
	// Matters reports whether a change to the file at path counts. Nil
	// means DefaultMatters.
	Matters func(path string) bool
	// RunAtStart makes Run call run once, with no changed paths, as soon as
	// the trees are watched, so a save during that first run is not missed
	// but cancels it.
	RunAtStart bool
	// Logger is told when Run polls because inotify is unavailable. Nil
	// means slog.Default().
	Logger *slog.Logger
}

// withDefaults returns the config with its zero fields filled in and its
// roots cleaned, or an error if a root is not a directory.
func (cfg Config) withDefaults() (Config, error) {
	if len(cfg.Roots) == 0 {
		return cfg, errors.New("watch: no roots to watch")
	}
	roots := make([]string, len(cfg.Roots))
	for i, root := range cfg.Roots {
		roots[i] = filepath.Clean(root)
		info, err := os.Lstat(roots[i])
		if err != nil {
			return cfg, fmt.Errorf("watch: %w", err)
		}
		if !info.IsDir() {
			return cfg, fmt.Errorf("watch: root %s is not a directory", root)
		}
	}
	cfg.Roots = roots
	if cfg.Debounce <= 0 {
		cfg.Debounce = DefaultDebounce
	}
	if cfg.PollInterval <= 0 {
		cfg.PollInterval = DefaultPollInterval
	}
	if cfg.Matters == nil {
		cfg.Matters = DefaultMatters
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	return cfg, nil
}

// A source reports the paths that changed, one at a time, on changes until
// ctx is done (then it returns nil) or it fails. The notifier (inotify) and
// the poller are the two sources.
type source interface {
	run(ctx context.Context, changes chan<- string) error
}

// Run watches the trees of cfg.Roots and calls run once per debounced
// batch of changes, with the changed paths sorted and without duplicates.
// They are files that matter; with inotify, a directory removed or moved
// away is given by its own path, and so is each root after inotify lost
// events.
//
// Calls of run never overlap. Each gets a ctx that is cancelled when a
// newer change arrives (with cause ErrNewerChange) or when Run's ctx ends;
// after a cancelled run returns, the next run starts once the debounce has
// passed, and it is given the cancelled run's paths again as well as the
// new ones. run must not write files that matter below the roots, or it
// starts itself again.
//
// To stop watching, cancel Run's ctx, from run if need be (the exercise is
// green: move on). Run then returns nil, after the last run returned, and
// calls run no more. It returns an error if the config is invalid or
// inotify fails.
func Run(ctx context.Context, cfg Config, run func(ctx context.Context, changed []string)) error {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return err
	}
	src, err := openSource(cfg)
	if err != nil {
		return err
	}

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	changes := make(chan string)
	srcErr := make(chan error, 1)
	go func() {
		err := src.run(ctx, changes)
		cancel() // a failed source ends the debouncer's loop too
		srcErr <- err
	}()

	debouncer{debounce: cfg.Debounce, run: run}.loop(ctx, changes, cfg.RunAtStart)
	cancel()
	if err := <-srcErr; err != nil {
		return fmt.Errorf("watch: %w", err)
	}
	return nil
}

// openSource returns the notifier with every directory watched, or the
// poller with its baseline scanned if polling was asked for or inotify is
// unavailable.
func openSource(cfg Config) (source, error) {
	if cfg.Poll {
		return newPoller(cfg.Roots, cfg.Matters, cfg.PollInterval), nil
	}
	n, err := newNotifier(cfg)
	if err == nil {
		err = n.watchTrees()
		if err == nil {
			return n, nil
		}
		n.w.Close()
	}
	if !errors.Is(err, errInotifyUnavailable) {
		return nil, fmt.Errorf("watch: %w", err)
	}
	cfg.Logger.Warn("Cannot watch with inotify; polling instead.", "reason", err, "interval", cfg.PollInterval)
	return newPoller(cfg.Roots, cfg.Matters, cfg.PollInterval), nil
}
