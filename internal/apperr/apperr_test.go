package apperr_test

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/apperr"
)

func TestError(t *testing.T) {
	t.Parallel()
	one := apperr.FieldError("name", "Enter a name.")
	require.Equal(t, "invalid: name: Enter a name.", one.Error())
	require.Equal(t, "name", one.FieldName())
	require.Equal(t, "Enter a name.", apperr.Message(fmt.Errorf("save: %w", one)))

	several := &apperr.Error{Code: apperr.Invalid, Fields: []apperr.Field{
		{Name: "from", Code: "time_format", Message: "use HH:MM"},
		{Name: "to", Message: "is before from"},
		{Name: "to", Message: "is on another day"},
	}}
	require.Equal(t, "invalid: from: use HH:MM; to: is before from; to: is on another day", several.Error())
	require.Empty(t, several.FieldName(), "about several fields")
	require.Equal(t, "is before from; is on another day", several.For("to"))
	require.Empty(t, several.For("customer"))

	detail := apperr.Detailf(apperr.NotFound, "no org %q", "acme")
	require.Equal(t, `not_found: no org "acme"`, detail.Error())
	require.Empty(t, apperr.Message(detail), "its words are its code's")

	require.Equal(t, apperr.Internal, apperr.Code(errors.New("boom")))
	require.Equal(t, apperr.InternalMessage, apperr.Message(errors.New(`relation "x" does not exist`)))
	require.Equal(t, apperr.InternalMessage, apperr.Message(apperr.Errorf(apperr.Internal, "pool closed")))
	require.Empty(t, apperr.Code(nil))
}

func TestReasonOf(t *testing.T) {
	t.Parallel()
	require.Equal(t, "last_admin", apperr.ReasonOf(fmt.Errorf("remove: %w", apperr.Refuse(apperr.Conflict, "last_admin", apperr.Args{"Email": "a@b.test"}))))
	f := apperr.FieldRefusal("email", "email_invalid", apperr.Args{"Max": 254})
	require.Equal(t, "email_invalid", apperr.ReasonOf(f))
	require.Equal(t, "email", f.FieldName())
	require.Empty(t, apperr.Message(f), "its words are the catalog's (i18n.Refusal)")
	require.Empty(t, apperr.ReasonOf(apperr.FieldError("name", "Enter a name.")))
	require.Empty(t, apperr.ReasonOf(errors.New("plain")))
}

// A refusal says itself in logs by its code, reason and arguments.
func TestRefusalForLogs(t *testing.T) {
	t.Parallel()
	r := apperr.Refuse(apperr.NotFound, "job_ref_not_found", apperr.Args{"Ref": "J-1", "Max": 3})
	require.Equal(t, `not_found: job_ref_not_found Max=3 Ref="J-1"`, r.Error())
	require.Equal(t, `not_found: org_gone`, apperr.Refuse(apperr.NotFound, "org_gone", nil).Error())
	f := apperr.FieldRefusal("name", "name_required", apperr.Args{"Max": 200})
	require.Equal(t, `invalid: name: name_required Max=200`, f.Error())
	w := apperr.Refuse(apperr.TooMany, "test_in_flight", nil).After(time.Minute)
	require.Equal(t, time.Minute, apperr.RetryAfter(w))
	several := &apperr.Error{Code: apperr.Invalid, Fields: []apperr.Field{
		{Name: "url", Code: "webhook_url_required"},
		{Name: "events", Code: "webhook_event_unknown", Args: apperr.Args{"Event": "x"}},
	}}
	require.Equal(t, `invalid: url: webhook_url_required; events: webhook_event_unknown Event="x"`, several.Error())
}
