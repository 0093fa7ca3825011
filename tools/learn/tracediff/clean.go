package tracediff

// CleanSubmission returns the course's table of the submission sequence:
// steps m1 to m11, each once, between the components the trace names, as
// a submission of one task that goes well shows them (the step table of
// the README, of lesson 01 and of the design). A predict exercise whose
// run matches it asks nothing that the table does not give away, which
// VerifyPrediction refuses.
func CleanSubmission() []Event {
	return []Event{
		{Step: "m1", From: "Client", To: "REST"},
		{Step: "m2", From: "Client", To: "REST"},
		{Step: "m3", From: "REST", To: "Dispatcher"},
		{Step: "m4", From: "JobManagerRunner", To: "JobMaster"},
		{Step: "m5", From: "JobMaster", To: "ResourceManager"},
		{Step: "m6", From: "JobMaster", To: "ResourceManager"},
		{Step: "m7", From: "SlotManager", To: "TaskExecutor"},
		{Step: "m8", From: "TaskExecutor", To: "JobMaster"},
		{Step: "m9", From: "JobMaster", To: "TaskExecutor"},
		{Step: "m10", From: "TaskExecutor", To: "BlobServer"},
		{Step: "m11", From: "Task", To: "JobMaster"},
	}
}
