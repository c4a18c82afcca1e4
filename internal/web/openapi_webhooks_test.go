package web

import (
	"context"
	"encoding/json"
	liberrors "github.com/pb33f/libopenapi-validator/errors"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/pb33f/libopenapi"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	"github.com/pb33f/libopenapi/datamodel/high/base"
	"github.com/stretchr/testify/require"

	"fieldbrief/internal/audit"
	"fieldbrief/internal/config"
	"fieldbrief/internal/delivery"
	"fieldbrief/internal/updates"
	"fieldbrief/internal/webhooks"
	"fmt"
)

// TestOpenAPIWebhooksDescribeTheEvents: the document's webhooks section
// names every event type, and real bodies validate against it: job and
// technician events from API writes (every type), a briefing.ready from
// the settings page's test, a briefing.updated as the worker encodes it.
func TestOpenAPIWebhooksDescribeTheEvents(t *testing.T) {
	t.Parallel()
	f := setupConfig(t, func(c *config.Web) { c.AllowPrivateWebhooks = true })
	served := f.anon().get("/api/v1/openapi.json")
	require.Equal(t, http.StatusOK, served.Code)
	doc, err := libopenapi.NewDocument([]byte(served.Body))
	require.NoError(t, err)
	model, err := doc.BuildV3Model()
	require.NoError(t, err)
	var names []string
	for name := range model.Model.Webhooks.KeysFromOldest() {
		names = append(names, name)
	}
	require.ElementsMatch(t, append(slices.Clone(webhooks.EventTypes), "briefing.ready", "briefing.updated"), names)
	schemaOf := func(name string) *base.Schema {
		item := model.Model.Webhooks.GetOrZero(name)
		require.NotNil(t, item, name)
		return item.Post.RequestBody.Content.GetOrZero("application/json").Schema.Schema()
	}
	check := func(body []byte) string {
		t.Helper()
		var ev struct{ Type string }
		require.NoError(t, json.Unmarshal(body, &ev))
		ok, errs := schema_validation.NewSchemaValidator().ValidateSchemaBytes(schemaOf(ev.Type), body)
		require.True(t, ok, "%s: %s\n%s", ev.Type, describe(errs), body)
		return ev.Type
	}

	rcv := newHookReceiver(t)
	forceConfig(t, f, f.orgA.ID, `{"briefing":{"timezone":"America/New_York","schedule_local_time":"08:00"},"delivery":{"webhook":{"url":"`+rcv.URL+`/briefings"}}}`)
	_, err = f.srv.webhooks.Create(context.Background(), audit.System, f.orgA.ID, webhooks.EndpointInput{URL: rcv.URL + "/events", Events: webhooks.EventTypes})
	require.NoError(t, err)

	acme := f.api(f.newToken(f.orgA, "sync"))
	require.Equal(t, http.StatusCreated, acme.Put("/api/v1/technicians/T-1", map[string]any{"name": "Ana Lima", "language": "es"}).Code)
	require.Equal(t, http.StatusCreated, acme.Put("/api/v1/technicians/T-2", map[string]any{"name": "Bo"}).Code)
	require.Equal(t, http.StatusCreated, acme.Put("/api/v1/jobs/J-1", map[string]any{"customer": "Mrs Jones",
		"arrival_start": "2026-03-09T08:00", "arrival_end": "2026-03-09T10:00", "technician_ref": "T-1"}).Code)
	require.Equal(t, http.StatusOK, acme.Call(http.MethodPatch, "/api/v1/jobs/J-1", `{"status": "done", "technician_ref": null}`,
		"Content-Type", mergePatch).Code)
	require.Equal(t, http.StatusOK, acme.Call(http.MethodPatch, "/api/v1/technicians/T-1", `{"phone": "+1 555 0100"}`, "Content-Type", mergePatch).Code)
	require.Equal(t, http.StatusOK, acme.Call(http.MethodPatch, "/api/v1/technicians/T-1", `{"active": false}`, "Content-Type", mergePatch).Code)
	require.Equal(t, http.StatusOK, acme.Call(http.MethodDelete, "/api/v1/technicians/T-2", nil).Code)
	// No path deletes a job; the trigger still reports one deleted in SQL.
	_, err = f.db.Exec(context.Background(), `DELETE FROM jobs WHERE org_id = $1 AND external_ref = 'J-1'`, f.orgA.ID)
	require.NoError(t, err)
	f.runWorkerOnce()

	readyBriefing(t, f, f.orgA.ID)
	require.Equal(t, http.StatusOK, f.as(&f.adminA).htmx().post(testWebhookPath, nil).Code)

	var seen []string
	for _, r := range rcv.requests() {
		seen = append(seen, check(r.Body))
	}
	// Every type at least once (the worker's tick may also have sent the day's briefing.ready).
	slices.Sort(seen)
	want := append(slices.Clone(webhooks.EventTypes), "briefing.ready")
	slices.Sort(want)
	require.Equal(t, want, slices.Compact(seen))

	before := updates.JobState{ID: 7, Customer: "Mrs Jones", Start: testStart, End: testStart.Add(time.Hour), Status: "scheduled",
		TechnicianID: 3, Technician: "Ana Lima"}
	after := before
	after.Status = "cancelled"
	body, err := json.Marshal(delivery.UpdateEvent{Type: "briefing.updated", Timestamp: testStart, Data: delivery.UpdateData{
		Org: delivery.WebhookOrg{Slug: "acme", Name: "Acme"}, Date: "2026-03-04", Timezone: "America/New_York",
		URL: "https://app.example.com/orgs/acme/briefings/2026-03-04", UpdateID: 1,
		Changes: []delivery.UpdateChange{{JobID: 7, Kind: "changed", Fields: []string{"status"}, Before: &before, After: after, TechnicianIDs: []int64{3}}}}})
	require.NoError(t, err)
	require.Equal(t, "briefing.updated", check(body))

	// docs/api.md's example event.
	md, err := os.ReadFile("../../docs/api.md")
	require.NoError(t, err)
	_, section, ok := strings.Cut(string(md), "\n## Events\n")
	require.True(t, ok)
	_, example, ok := strings.Cut(section, "```json\n")
	require.True(t, ok)
	example, _, _ = strings.Cut(example, "```")
	require.Equal(t, "job.updated", check([]byte(example)))
}

// describe lists the validator's errors with their reasons.
func describe(errs []*liberrors.ValidationError) string {
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "\n  %s: %s", e.Message, e.Reason)
		for _, s := range e.SchemaValidationErrors {
			fmt.Fprintf(&b, "\n    %s: %s", s.FieldPath, s.Reason)
		}
	}
	return b.String()
}
