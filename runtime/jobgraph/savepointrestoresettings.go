package jobgraph

import "fmt"

// SavepointRestoreSettings say which savepoint (or retained checkpoint) a
// job starts from (Flink's SavepointRestoreSettings). `flink run -s PATH`
// and the savepointPath of POST /jars/:jarid/run set them; the JobMaster's
// scheduler reads them when the job first starts and no checkpoint of the
// job exists yet (SchedulerBase#tryRestoreExecutionGraphFromSavepoint).
// The zero value, SavepointRestoreSettingsNone, starts the job empty.
type SavepointRestoreSettings struct {
	// RestorePath is the savepoint's directory, or its _metadata file, as a
	// path or a file: URI; empty: restore nothing.
	RestorePath string `json:"restorePath,omitempty"`
	// AllowNonRestoredState lets the job start although the savepoint holds
	// state of an operator the job no longer has (flink run -n,
	// --allowNonRestoredState); that state is skipped.
	AllowNonRestoredState bool `json:"allowNonRestoredState,omitempty"`
}

// SavepointRestoreSettingsNone restores nothing (Flink's
// SavepointRestoreSettings.none()).
var SavepointRestoreSettingsNone = SavepointRestoreSettings{}

// SavepointRestoreSettingsForPath restores the savepoint at path (Flink's
// SavepointRestoreSettings.forPath).
func SavepointRestoreSettingsForPath(path string, allowNonRestoredState bool) SavepointRestoreSettings {
	return SavepointRestoreSettings{RestorePath: path, AllowNonRestoredState: allowNonRestoredState}
}

// RestoreSavepoint reports whether the job starts from a savepoint.
func (s SavepointRestoreSettings) RestoreSavepoint() bool { return s.RestorePath != "" }

// String prints the settings as Flink's toString does.
func (s SavepointRestoreSettings) String() string {
	if !s.RestoreSavepoint() {
		return "SavepointRestoreSettings.none()"
	}
	return fmt.Sprintf("SavepointRestoreSettings{restorePath='%s', allowNonRestoredState=%t, recoveryClaimMode=NO_CLAIM}",
		s.RestorePath, s.AllowNonRestoredState)
}
