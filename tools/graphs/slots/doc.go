// Package slots works out where a job's subtasks run: on which
// TaskManager, in which slot, next to which other subtasks. It is the
// decision half of `go run ./tools/graphs -slots`; package dot draws what
// it decides and package explain prints it.
//
//	go run ./tools/graphs -slots -explain -p 2 -D taskmanager.numberOfTaskSlots=2 wordcount
//
// # The plan
//
// PlanJob answers the question for a JobGraph and a standalone cluster of
// identical TaskManagers (Cluster: how many, and their configuration under
// Flink's keys) without running anything, by calling the same pure
// functions the runtime calls, in the order the submission calls them:
//
//  1. Each TaskManager's resources, as a TaskManager process computes its
//     own before it starts (taskmanagerrunner.ProcessSpec, with Flink's
//     distribution default taskmanager.memory.process.size: 1728m): the
//     total its slots share (clusterframework.TotalResourceProfile) and
//     the profile of a default slot, the total divided by
//     taskmanager.numberOfTaskSlots
//     (clusterframework.DefaultSlotResourceProfile).
//  2. Step m4: the shared slots the JobMaster's DefaultScheduler requests
//     (scheduler.SharedSlots, Flink's LocalInputPreferredSlotSharingStrategy):
//     subtask i of each JobVertex of a slot sharing group shares a slot
//     with subtasks of the group's other vertices, co-location groups
//     respected; each with the profile it is requested with, the slot
//     sharing group's resources or ResourceProfile{UNKNOWN} ("any slot").
//  3. Step m6: the requirements the JobMaster's slot pool declares, one
//     per profile with the number of shared slots of that profile
//     (slotpool.SlotPool.Requirements).
//  4. Step m7: the ResourceManager's matching
//     (slotmanager.DefaultResourceAllocationStrategy): specific profiles
//     first, each slot cut out of the first TaskManager whose free
//     resources hold it, the first TaskManager filled before the next; a
//     requirement for UNKNOWN gets a slot of the default profile. What
//     fits nowhere is left unfulfilled: the job waits (Waiting).
//  5. Step m8: each shared slot is paired with a slot cut for its
//     profile, in the order both were made.
//
// Step 5 is where the plan is a plan. At run time the JobMaster's slot pool
// gives each slot a TaskExecutor offers to the oldest waiting request of
// exactly its profile, or else to the oldest request it matches
// (slotpool.SlotPool.OfferSlots, as Flink's DefaultRequirementMatcher), so
// a slot cut for a slot sharing group with resources serves that group,
// and which of two equal slots a shared slot gets depends on the order the
// offers arrive. Which TaskManager cuts which
// slot, how much each has left, and what does not fit are the
// ResourceManager's decisions, and those the plan shows as the runtime
// makes them. Slots are numbered 1, 2, … on each TaskManager in the order
// the strategy cuts them; a TaskExecutor numbers its dynamic slots from
// taskmanager.numberOfTaskSlots up, in the order the requests arrive.
//
// # A running job
//
// Running is the same question asked of a cluster over REST, with only
// what Flink's REST API answers: each TaskManager's total and free
// resources and its allocated slots, each with its profile and job
// (GET /taskmanagers/{taskmanagerid}), and which TaskManager each subtask
// runs on (the taskmanager-id of GET /jobs/{jobid}/vertices/{vertexid}).
// Flink's REST does not say which slot a subtask runs in, so a running
// job's subtasks are listed per TaskManager, not per slot. REST gives
// memory in whole MiB, rounded down: a default slot's 201326587 bytes of
// task heap show as 191 MiB.
//
// Everything here is deterministic: TaskManagers are named tm-1, tm-2, …,
// subtasks by their vertex's name and index ("tokenize (1/2)"), and slot
// sharing groups by name; no random ID reaches the output.
package slots
