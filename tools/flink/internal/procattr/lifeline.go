package procattr

import (
	"os"
	"sync"
)

// LifelineFD is the file descriptor a daemon finds its lifeline on
// (--lifeline-fd), after the ready pipe on 3.
const LifelineFD = 4

var lifeline struct {
	once sync.Once
	r, w *os.File
	err  error
}

// Lifeline returns the read end of a pipe to hand every daemon this
// process starts, as file descriptor LifelineFD. Nothing is ever
// written to the pipe, and its write end stays open in this process
// until it exits, however it exits: killed with SIGKILL, its files are
// closed by the kernel, and every daemon reads end-of-file. That is how a
// daemon learns that the process that started it is gone, and says so in
// its log before it stops (see entrypoint.WaitForShutdown).
//
// Linux's parent-death signal (prctl PR_SET_PDEATHSIG) would stop the
// daemons too, but it fires when the thread that started the child ends,
// while the rest of the parent may still be exiting: the daemon could
// not tell a parent's death from a kill. The pipe works the same on
// every system.
func Lifeline() (*os.File, error) {
	lifeline.once.Do(func() {
		// O_CLOEXEC (os.Pipe's default): only the children given the
		// read end in ExtraFiles get a copy of it, and none gets the
		// write end, which would keep their siblings' lifelines open.
		lifeline.r, lifeline.w, lifeline.err = os.Pipe()
	})
	return lifeline.r, lifeline.err
}
