package diagnose

import "flinklab/runtime/trace"

// whatStepDoes says, per step (of a submission, m1–m11, and of a
// checkpoint, k1–k7), what the step does and what the logs show
// when it fails there, in the course's words and not in the log's: a
// learner who named the wrong step reads it, and it must not give the
// proving line away. Each names no component but the step's own
// (ComponentOf), so that a learner who named a neighbouring step is not
// told the component to open.
var whatStepDoes = map[trace.Step]string{
	trace.M1: "At m1 the client uploads the job's jar to the REST endpoint; " +
		"a failure there leaves no jar stored and no job at all, and nothing after it happens.",
	trace.M2: "At m2 the run request asks the REST endpoint to build the JobGraph from the uploaded jar; " +
		"a failure there refuses the request before any job exists.",
	trace.M3: "At m3 the Dispatcher takes the JobGraph (Dispatcher.submitJob); " +
		"a failure there refuses the submission, and the job never starts.",
	trace.M4: "At m4 the JobManagerRunner creates and starts the job's JobMaster; " +
		"a failure there ends the job while it initializes, before it asks for any resources.",
	trace.M5: "At m5 the ResourceManager takes the registration of the job's master; " +
		"a failure there leaves the job unregistered or registered late, so it cannot ask for slots in time.",
	trace.M6: "At m6 the JobMaster's slot pool declares the job's resource requirements (declareRequiredResources); " +
		"a failure there means the declaration does not arrive, or arrives late.",
	trace.M7: "At m7 the SlotManager matches the job's requirements to free slots and asks for them (requestSlot); " +
		"a failure there leaves the requirements unmatched while the job waits.",
	trace.M8: "At m8 a TaskExecutor offers the slots it reserved to the job (offerSlots); " +
		"a failure there shows as an offer refused or unanswered, and the slot freed or offered again.",
	trace.M9: "At m9 the TaskExecutor receives the tasks deployed into its slots (submitTask); " +
		"a failure there means a task never arrives, because the call or the TaskManager itself was lost.",
	trace.M10: "At m10 the task's jar comes from the BlobServer into the BLOB cache; " +
		"a failure there means the task cannot get its code and never starts.",
	trace.M11: "At m11 the task goes INITIALIZING and RUNNING and opens its operators; " +
		"a failure there is the job's own code throwing while its task starts.",

	trace.K1: "At k1 the JobMaster's CheckpointCoordinator triggers a checkpoint: it creates the pending checkpoint " +
		"and sends the trigger to every source; a failure there means no source ever hears of the checkpoint, " +
		"so nothing of it is taken anywhere.",
	trace.K2: "At k2 the trigger reaches each source's task, which starts the checkpoint if it is running; " +
		"a failure there is a source that declines the trigger, and the checkpoint is aborted at once instead of waiting.",
	trace.K3: "At k3 a source takes its snapshot and sends the barrier on every output channel, behind the records before it; " +
		"a failure there leaves the source's snapshot untaken.",
	trace.K4: "At k4 a task with several inputs waits for the barrier on all of them, holding back the inputs whose " +
		"barrier came (the alignment), then takes its snapshot and sends the barrier on; a failure there is an alignment " +
		"that never ends: the task stops reading, and what its inputs send backs up behind it.",
	trace.K5: "At k5 each task writes its snapshot to the checkpoint's storage and acknowledges the checkpoint with the " +
		"state's handles; a failure there is a task that declines because its state could not be written, " +
		"or whose acknowledgement never arrives.",
	trace.K6: "At k6 the last acknowledgement arrives, and the JobMaster's CheckpointCoordinator writes the checkpoint's " +
		"_metadata and keeps it as completed; a failure there means every part of the checkpoint was acknowledged, " +
		"but it could not be finalized.",
	trace.K7: "At k7 the tasks hear that the checkpoint completed, and a transactional sink commits what the checkpoint " +
		"covers; a failure there leaves output uncommitted, though the checkpoint itself completed.",
}

// firstFailureRule is what every wrong step's message ends with.
const firstFailureRule = "The step to name is where the first failure happened, not where the job finally gave up: " +
	"a restart or a FAILED job is a consequence."

// firstCheckpointFailureRule is what every wrong step's message ends
// with in a drill of a checkpoint.
const firstCheckpointFailureRule = "The step to name is where the checkpoint stopped, not where it was given up: " +
	"an expired checkpoint, a restart or a FAILED job is a consequence."
