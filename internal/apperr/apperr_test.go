package apperr_test

import (
	"errors"
	"fmt"
	"testing"

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
	require.Equal(t, "last_admin", apperr.ReasonOf(fmt.Errorf("remove: %w", apperr.Reasonf(apperr.Conflict, "last_admin", "%s is the only admin.", "a@b.test"))))
	f := apperr.FieldCodef("email", "email_invalid", "Enter a valid email address (at most %d characters).", 254)
	require.Equal(t, "email_invalid", apperr.ReasonOf(f))
	require.Equal(t, "email", f.FieldName())
	require.Equal(t, "Enter a valid email address (at most 254 characters).", apperr.Message(f))
	require.Empty(t, apperr.ReasonOf(apperr.FieldError("name", "Enter a name.")))
	require.Empty(t, apperr.ReasonOf(errors.New("plain")))
}
