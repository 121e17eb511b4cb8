package publish

import "time"

// maxBackoff caps the wait between two tries.
const maxBackoff = 8 * time.Second

// wait sleeps before try number try (2, 3, …): Backoff, doubled each time, capped; hint
// (a Retry-After) replaces it when longer and reasonable. It returns false when the run was
// stopped meanwhile.
func (r *run) wait(try int, hint time.Duration) bool {
	d := r.opts.Backoff << (try - 2)
	if d > maxBackoff || d <= 0 {
		d = maxBackoff
	}
	if hint > d && hint <= 30*time.Second {
		d = hint
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-r.ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// stopped reports whether the run was interrupted.
func (r *run) stopped() bool { return r.ctx.Err() != nil }

// reasonStopped is the reason given to steps an interruption cut short.
const reasonStopped = "the run was interrupted; run plaios publish again to finish"
