package rest_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os"
	"testing"
	"testing/synctest"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"flinklab/runtime/api"
	"flinklab/runtime/checkpoint"
	"flinklab/runtime/gateway/gatewaytest"
)

// correctCheckpointSchemas corrects the spec's checkpoint and savepoint
// schemas where they do not describe what Flink 1.20 sends:
//
//   - CheckpointStatistics. Flink writes one of three subclasses, named by
//     "className" (CompletedCheckpointStatistics with external_path and
//     discarded, FailedCheckpointStatistics with failure_timestamp and
//     failure_message, PendingCheckpointStatistics); the spec describes
//     each as allOf the base and its own fields, which no object matches
//     once objects are closed. Each becomes one closed object of both,
//     with its className, and CheckpointStatistics the oneOf the three.
//   - Nulls Flink writes: a checkpoint's savepointFormat, the latest
//     completed, savepoint, failed and restored checkpoint when there is
//     none, a savepoint operation's operation while it runs, and the one
//     of its location and failure-cause it does not have.
//   - SerializedThrowable is what Flink's SerializedThrowableSerializer
//     writes (class, stack-trace, serialized-throwable), as for JobResult.
//   - ProcessingMode, the checkpoint config's mode, is written in lower
//     case by Flink's ProcessingModeSerializer: "exactly_once".
func correctCheckpointSchemas(t *testing.T, schemas openapi3.Schemas) {
	t.Helper()
	for _, name := range []string{"CheckpointStatistics", "CompletedCheckpointStatistics", "FailedCheckpointStatistics",
		"PendingCheckpointStatistics", "LatestCheckpoints", "SavepointInfo", "AsynchronousOperationResult",
		"SerializedThrowable", "ProcessingMode"} {
		require.Contains(t, schemas, name)
	}
	base := schemas["CheckpointStatistics"].Value
	base.Properties["savepointFormat"].Value.Nullable = true
	baseProperties := base.Properties
	var kinds openapi3.SchemaRefs
	for name, className := range map[string]string{"CompletedCheckpointStatistics": "completed",
		"FailedCheckpointStatistics": "failed", "PendingCheckpointStatistics": "in_progress"} {
		merged := openapi3.NewObjectSchema()
		for field, schema := range baseProperties {
			merged.Properties[field] = schema
		}
		for _, part := range schemas[name].Value.AllOf {
			if part.Value != base {
				for field, schema := range part.Value.Properties {
					merged.Properties[field] = schema
				}
			}
		}
		merged.Properties["className"] = openapi3.NewSchemaRef("", openapi3.NewStringSchema().WithEnum(className))
		merged.Required = []string{"className"}
		merged.AdditionalProperties.Has = openapi3.Ptr(false)
		*schemas[name].Value = *merged // every reference to the subclass sees it
		kinds = append(kinds, &openapi3.SchemaRef{Value: schemas[name].Value})
	}
	*base = openapi3.Schema{OneOf: kinds}

	throwable := openapi3.NewObjectSchema().
		WithProperty("class", openapi3.NewStringSchema()).
		WithProperty("stack-trace", openapi3.NewStringSchema()).
		WithProperty("serialized-throwable", openapi3.NewStringSchema().WithFormat("byte"))
	throwable.Required = []string{"class", "stack-trace"}
	throwable.AdditionalProperties.Has = openapi3.Ptr(false)
	*schemas["SerializedThrowable"].Value = *throwable

	nullable := func(ref *openapi3.SchemaRef) *openapi3.SchemaRef {
		copied := *ref.Value
		copied.Nullable = true
		return &openapi3.SchemaRef{Value: &copied}
	}
	latest := schemas["LatestCheckpoints"].Value
	for _, field := range []string{"completed", "savepoint", "failed", "restored"} {
		latest.Properties[field] = nullable(latest.Properties[field])
	}
	savepointInfo := schemas["SavepointInfo"].Value
	for _, field := range []string{"location", "failure-cause"} {
		savepointInfo.Properties[field] = nullable(savepointInfo.Properties[field])
	}
	result := schemas["AsynchronousOperationResult"].Value
	result.Properties["operation"] = nullable(result.Properties["operation"])

	schemas["ProcessingMode"].Value.Enum = []any{"at_least_once", "exactly_once"}
}

// The savepoint operation's answers, in each of its states, conform to
// Flink's spec: in a synctest bubble, in-process, so that the operation is
// in progress, or has ended, when the test asks.
func TestSavepointAnswersConformToFlinksSpec(t *testing.T) {
	specPath := os.Getenv(specEnv)
	if specPath == "" {
		t.Skipf("%s is not set: point it at Flink's rest_v1_dispatcher.yml", specEnv)
	}
	spec := loadFlinkSpec(t, specPath)
	synctest.Test(t, func(t *testing.T) {
		d := &gatewaytest.DispatcherGateway{}
		calls := blockingSavepoints(d, "/savepoints/savepoint-8d4f2a-0123456789ab")
		e := newSavepointEndpoint(t, d)
		job := "/jobs/" + api.NewJobID().String()
		check := func(operation, method, path, body string, wantStatus int) string {
			req, err := http.NewRequestWithContext(context.Background(), method, path, bytes.NewReader([]byte(body)))
			require.NoError(t, err)
			rec := e.serve(method, path, body)
			require.Equal(t, wantStatus, rec.Code, "%s %s: %s", method, path, rec.Body)
			err = openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
				RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, Route: specRoute(t, spec, operation)},
				Status:                 rec.Code,
				Header:                 rec.Header(),
				Body:                   io.NopCloser(bytes.NewReader(rec.Body.Bytes())),
				Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true},
			})
			assert.NoError(t, err, "%s %s answered %d %s", method, path, rec.Code, rec.Body)
			return rec.Body.String()
		}
		status := "GET /jobs/{jobid}/savepoints/{triggerid}"

		succeeding := e.trigger(job+"/savepoints", `{}`)
		failing := e.trigger(job+"/stop", `{}`)
		synctest.Wait()
		check(status, "GET", job+"/savepoints/"+succeeding, "", 200) // IN_PROGRESS
		(<-calls).answer <- nil
		(<-calls).answer <- checkpoint.NewCheckpointException(checkpoint.CheckpointExpired, nil)
		synctest.Wait()
		assert.Contains(t, check(status, "GET", job+"/savepoints/"+succeeding, "", 200), `"location"`)
		assert.Contains(t, check(status, "GET", job+"/savepoints/"+failing, "", 200), `"failure-cause"`)
		check(status, "GET", job+"/savepoints/00112233445566778899aabbccddeeff", "", 404)
		check(status, "GET", job+"/savepoints/xyz", "", 400)
		check("POST /jobs/{jobid}/stop", "POST", job+"/stop", `{"formatType": "PARQUET"}`, 400)
	})
}
