package explain

import (
	"fmt"
	"io"
	"strings"

	"flinklab/runtime/configuration"
	"flinklab/tools/graphs/slots"
)

// WriteSlots prints a slot plan (package slots) step by step, as the
// diagram of `go run ./tools/graphs -slots` draws it:
//
//	go run ./tools/graphs -slots -explain -p 2 -D taskmanager.numberOfTaskSlots=2 wordcount
//
// the TaskManagers' resources, the shared slots the scheduler requests
// (step m4), the requirements the JobMaster declares (step m6), the slots
// the ResourceManager cuts out of each TaskManager with the shared slot
// planned into each (steps m7 and m8), what is left free, and what waits
// because no TaskManager has the resources.
func WriteSlots(w io.Writer, p *slots.Plan) {
	fmt.Fprintf(w, "%s: where its subtasks run on %s (planned, not run)\n\n", p.JobName, slots.Describe(len(p.TaskManagers), p.NumberOfSlots))

	fmt.Fprintf(w, "Each TaskManager (%d of them, %s: %d), from its configuration (clusterframework):\n", len(p.TaskManagers), configuration.NumTaskSlots.Key(), p.NumberOfSlots)
	writeRows(w, [][2]string{
		{"total", p.Total.String()},
		{"default slot", fmt.Sprintf("%s (the total / %d)", p.DefaultSlot, p.NumberOfSlots)},
	})
	fmt.Fprintln(w)

	fmt.Fprintf(w, "Shared slots: %d (step m4, scheduler.SharedSlots: one subtask of each JobVertex of a slot sharing group per slot)\n", len(p.SharedSlots))
	var rows [][2]string
	for _, s := range p.SharedSlots {
		rows = append(rows, [2]string{s.Name(), slots.Short(s.Profile) + ": " + subtaskList(s.Subtasks)})
	}
	writeRows(w, rows)
	fmt.Fprintln(w)

	fmt.Fprintln(w, "Requirements (step m6, the JobMaster declares one per profile):")
	for _, r := range p.Requirements {
		fmt.Fprintf(w, "  %v\n", r)
	}
	fmt.Fprintln(w)

	fmt.Fprintln(w, "Slots (step m7, DefaultResourceAllocationStrategy: specific profiles first, each TaskManager filled before the next):")
	for _, tm := range p.TaskManagers {
		fmt.Fprintf(w, "  %s\n", tm.Name)
		for _, slot := range tm.Slots {
			kind := "as required"
			if slot.Shared.Profile.IsUnknown() {
				kind = "a default slot, for UNKNOWN"
			}
			fmt.Fprintf(w, "    slot %d  %s (%s)\n", slot.Number, slots.Short(slot.Profile), kind)
			fmt.Fprintf(w, "            %s: %s\n", slot.Shared.Name(), subtaskList(slot.Shared.Subtasks))
		}
		fmt.Fprintf(w, "    free    %s\n", tm.Free)
		if room := tm.RoomForDefaultSlots(); room > 0 {
			fmt.Fprintf(w, "            room for %s of the default profile\n", count(room, "slot", "slots"))
		}
	}
	fmt.Fprintln(w)

	if len(p.Waiting) == 0 {
		fmt.Fprintln(w, "Waiting: nothing; every shared slot has a slot.")
	} else {
		fmt.Fprintln(w, "Waiting (the job's slot requests wait for a TaskManager with room; none of its subtasks deploys until all its slots are there):")
		for _, wt := range p.Waiting {
			fmt.Fprintf(w, "  %s\n", wt.Reason())
			for _, s := range wt.Shared {
				fmt.Fprintf(w, "    %s: %s\n", s.Name(), subtaskList(s.Subtasks))
			}
		}
	}
	fmt.Fprintln(w)

	fmt.Fprintln(w, "This is the plan. At run time the JobMaster's slot pool gives each offered slot to the oldest")
	fmt.Fprintln(w, "waiting request of exactly its profile, or else of any slot (step m8), so which of two equal")
	fmt.Fprintln(w, "slots a shared slot gets is up to the order the offers arrive.")
}

// subtaskList joins subtasks: "tokenize (1/2), count (1/2)".
func subtaskList(subtasks []slots.Subtask) string {
	names := make([]string, len(subtasks))
	for i, s := range subtasks {
		names[i] = s.String()
	}
	return strings.Join(names, ", ")
}

// WriteRunningSlots prints a job on a running cluster as REST shows it
// (slots.Running): each TaskManager with its resources, its allocated
// slots and the job's subtasks on it, and the subtasks on no TaskManager.
// Subtasks are listed per TaskManager: Flink's REST does not say which
// slot a subtask runs in.
func WriteRunningSlots(w io.Writer, r *slots.Running) {
	fmt.Fprintf(w, "%s (%s), job %s: its subtasks by TaskManager, from REST\n", r.JobName, r.JobState, r.JobID)
	fmt.Fprintln(w, "(REST does not say which slot a subtask runs in, so they are listed per TaskManager;")
	fmt.Fprintln(w, "it gives memory in whole MiB, rounded down.)")
	for _, tm := range r.TaskManagers {
		fmt.Fprintln(w)
		if !tm.Registered {
			fmt.Fprintf(w, "%s: no longer registered\n", tm.ID)
		} else {
			fmt.Fprintf(w, "%s: %d slots, %d free, %d of this job\n", tm.ID, tm.SlotsNumber, tm.FreeSlots, tm.SlotsOf(r.JobID))
			writeRows(w, [][2]string{{"total", slots.FullInfo(tm.Total)}, {"free", slots.FullInfo(tm.Free)}})
			for _, slot := range tm.Slots {
				owner := "this job"
				if slot.JobID != r.JobID {
					owner = "job " + slot.JobID.String()
				}
				fmt.Fprintf(w, "  slot  %s  %s\n", slots.ShortInfo(slot.Resource), owner)
			}
		}
		if len(tm.Subtasks) == 0 {
			fmt.Fprintln(w, "  no subtask of this job")
		}
		for _, s := range tm.Subtasks {
			fmt.Fprintf(w, "  runs  %s\n", s)
		}
	}
	if len(r.Unassigned) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, "On no TaskManager (no slot yet):")
		for _, s := range r.Unassigned {
			fmt.Fprintf(w, "  %s\n", s)
		}
	}
}
