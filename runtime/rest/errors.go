package rest

import (
	"errors"
	"fmt"
	"net/http"
	"strings"

	"flinklab/runtime/client"
	"flinklab/runtime/gateway"
)

// Sentinels a handler wraps to say what kind of failure it saw. They never
// reach the client themselves: errorResponse turns them into a status.
var (
	// errBadRequest: the request itself is wrong (400).
	errBadRequest = errors.New("bad request")
	// errNotFound: the request names something that does not exist (404).
	errNotFound = errors.New("not found")
	// errForbidden: the request is well formed, but this endpoint will not
	// serve it here (403), as /cluster/faults on a non-loopback address.
	errForbidden = errors.New("forbidden")
	// errConflict: the request cannot be done in the state the thing it
	// names is in (409), as cancelling a job that has already FINISHED.
	errConflict = errors.New("conflict")
	// errTimeout: the component the handler asked did not answer in time
	// (408), as Flink's "Job cancellation timed out.".
	errTimeout = errors.New("timeout")
	// errUnsupportedMediaType: the request body is not sent as the
	// endpoint requires (415), as a text/plain body to one of flinklab's
	// own endpoints, which take application/json only.
	errUnsupportedMediaType = errors.New("unsupported media type")
	// errRemoved: the request asks for something Flink has removed, and
	// points elsewhere (308, without a Location), as PATCH
	// /jobs/{jobid}?mode=stop does in Flink.
	errRemoved = errors.New("removed")
)

// unhandledError is a failure the handler passes on without mapping it,
// as the Flink handler it mirrors does: 500, whatever it wraps, even an
// error another handler would answer otherwise (a job that is not found
// is a 404 elsewhere, but Flink's JobResourceRequirementsHandler answers
// it 500).
type unhandledError struct{ cause error }

func (e *unhandledError) Error() string { return e.cause.Error() }
func (e *unhandledError) Unwrap() error { return e.cause }

// unhandled returns err as a failure the handler does not map (500).
func unhandled(err error) error { return &unhandledError{cause: err} }

// handlerError is Flink's RestHandlerException: the messages the client
// reads, and the cause that decides the HTTP status.
type handlerError struct {
	messages []string
	cause    error
}

func (e *handlerError) Error() string { return strings.Join(e.messages, " ") }
func (e *handlerError) Unwrap() error { return e.cause }

// badRequest returns a 400 error with Flink's messages.
func badRequest(messages ...string) error {
	return &handlerError{messages: messages, cause: errBadRequest}
}

// notFound returns a 404 error with Flink's messages.
func notFound(messages ...string) error {
	return &handlerError{messages: messages, cause: errNotFound}
}

// forbidden returns a 403 error with the given messages.
func forbidden(messages ...string) error {
	return &handlerError{messages: messages, cause: errForbidden}
}

// conflict returns a 409 error with Flink's messages.
func conflict(messages ...string) error {
	return &handlerError{messages: messages, cause: errConflict}
}

// timedOut returns a 408 error with Flink's messages.
func timedOut(messages ...string) error {
	return &handlerError{messages: messages, cause: errTimeout}
}

// unsupportedMediaType returns a 415 error with the given messages.
func unsupportedMediaType(messages ...string) error {
	return &handlerError{messages: messages, cause: errUnsupportedMediaType}
}

// removed returns a 308 error with Flink's messages.
func removed(messages ...string) error {
	return &handlerError{messages: messages, cause: errRemoved}
}

// withMessages keeps cause (and so its status) but shows the client
// Flink's messages instead of cause's text.
func withMessages(cause error, messages ...string) error {
	return &handlerError{messages: messages, cause: cause}
}

// statusOf is the one place a Go error becomes an HTTP status (STYLE habit
// 8). Everything the runtime answers with is listed here:
//
//	*unhandledError                         500  whatever it wraps: a failure
//	                                             Flink's handler does not map
//	*http.MaxBytesError                     413  a body over MaxUploadSize
//	errRemoved                              308  PATCH /jobs/{jobid}?mode=stop
//	errBadRequest, client.ErrInvalidJar     400  the request or its jar is wrong
//	errForbidden                            403  /cluster/faults refused here, or a request
//	                                             of another site to flinklab's own endpoints
//	errNotFound, gateway.ErrJobNotFound  404  no such jar, job, file or route
//	errTimeout                              408  job cancellation timed out, a request
//	                                             body that stopped arriving
//	errUnsupportedMediaType                 415  a body that is not application/json
//	                                             to flinklab's own endpoints
//	errConflict                             409  cancelling a job that ended otherwise,
//	                                             a second update of a job's requirements
//	gateway.ErrNoLeader                     503  no Dispatcher leads now
//	anything else                           500  including the Dispatcher's
//	                                             JobSubmissionError and
//	                                             DuplicateJobSubmissionError
//	                                             of POST /jobs (a run answers
//	                                             them 400, see runRefused),
//	                                             and a scheduler's
//	                                             UnsupportedOperationException,
//	                                             which Flink answers with 500 too
func statusOf(err error) int {
	var tooLarge *http.MaxBytesError
	var passedOn *unhandledError
	switch {
	case errors.As(err, &passedOn):
		return http.StatusInternalServerError
	case errors.As(err, &tooLarge):
		return http.StatusRequestEntityTooLarge
	case errors.Is(err, errRemoved):
		return http.StatusPermanentRedirect
	case errors.Is(err, errBadRequest), errors.Is(err, client.ErrInvalidJar):
		return http.StatusBadRequest
	case errors.Is(err, errForbidden):
		return http.StatusForbidden
	case errors.Is(err, errNotFound), errors.Is(err, gateway.ErrJobNotFound):
		return http.StatusNotFound
	case errors.Is(err, errTimeout):
		return http.StatusRequestTimeout
	case errors.Is(err, errConflict):
		return http.StatusConflict
	case errors.Is(err, errUnsupportedMediaType):
		return http.StatusUnsupportedMediaType
	case errors.Is(err, gateway.ErrNoLeader):
		return http.StatusServiceUnavailable
	default:
		return http.StatusInternalServerError
	}
}

// errorResponse builds Flink's ErrorResponseBody for err. A 500 hides
// nothing and explains nothing, in Flink's words:
//
//	{"errors": ["Internal server error.", "<Exception on server side:\n…\nEnd of exception on server side>"]}
//
// where Flink prints the Java stack trace and we print the error chain.
// Other statuses show the handler's messages, or the error's text.
func errorResponse(err error) (int, ErrorResponseBody) {
	status := statusOf(err)
	var he *handlerError
	var tooLarge *http.MaxBytesError
	switch {
	case errors.Is(err, gateway.ErrNoLeader):
		// Flink's LeaderRetrievalHandler answers with its own words only.
		return status, ErrorResponseBody{Errors: []string{gateway.ErrNoLeader.Error()}}
	case status == http.StatusInternalServerError:
		return status, ErrorResponseBody{Errors: []string{
			"Internal server error.",
			fmt.Sprintf("<Exception on server side:\n%v\nEnd of exception on server side>", err),
		}}
	case errors.As(err, &tooLarge):
		return status, ErrorResponseBody{Errors: []string{
			// Netty's TooLongFrameException, completed as Flink's
			// FlinkHttpObjectAggregator completes it.
			fmt.Sprintf("content length exceeded %d bytes. Try to raise [rest.server.max-content-length]", tooLarge.Limit),
		}}
	case errors.As(err, &he):
		return status, ErrorResponseBody{Errors: he.messages}
	default:
		return status, ErrorResponseBody{Errors: []string{err.Error()}}
	}
}
