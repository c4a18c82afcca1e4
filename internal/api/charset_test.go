package api

import (
	"net/http"
	"testing"

	"github.com/stretchr/testify/require"

	"fieldbrief/internal/api/apitest"
)

// A body declared in another charset than UTF-8 is 415 with the JSON
// envelope, nothing saved (docs/api.md, "Errors"); no charset, or utf-8 in
// any case, is read.
func TestAPIRefusesOtherCharsets(t *testing.T) {
	t.Parallel()
	f := setup(t)
	api := f.api(f.newToken(f.orgA, "sync"))
	body := `{"name": "Dana"}`
	for _, ct := range []string{"application/json; charset=iso-8859-1", "application/json; charset=UTF-16", `application/json;charset="windows-1252"`} {
		r := api.Call(http.MethodPut, "/api/v1/technicians/T-1", body, "Content-Type", ct)
		apitest.RequireError(t, r, http.StatusUnsupportedMediaType, "unsupported_media_type")
		require.Contains(t, r.Body, "UTF-8", ct)
	}
	require.Zero(t, f.count(`SELECT count(*) FROM technicians`))
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "application/json; charset=UTF-8"} {
		r := api.Call(http.MethodPut, "/api/v1/technicians/T-1", body, "Content-Type", ct)
		require.Contains(t, []int{http.StatusCreated, http.StatusOK}, r.Code, "%s: %s", ct, r.Body)
	}

	patch := func(ct string) apitest.Response {
		return api.Call(http.MethodPatch, "/api/v1/technicians/T-1", `{"phone": "555"}`, "Content-Type", ct)
	}
	apitest.RequireError(t, patch(mergePatch+"; charset=latin1"), http.StatusUnsupportedMediaType, "unsupported_media_type")
	require.Zero(t, f.count(`SELECT count(*) FROM technicians WHERE phone = '555'`))
	require.Equal(t, http.StatusOK, patch(mergePatch+"; charset=Utf-8").Code)
}
