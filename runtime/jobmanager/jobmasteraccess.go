package jobmanager

import "flinklab/runtime/gateway"

// JobMasterGateway returns the gateway of the running JobMaster; see
// runningJobMaster for when there is none.
func (r *JobMasterServiceLeadershipRunner) JobMasterGateway() (gateway.JobMasterGateway, error) {
	jm, err := r.runningJobMaster()
	if err != nil {
		return nil, err
	}
	return jm.Gateway(), nil
}
