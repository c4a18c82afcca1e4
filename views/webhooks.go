package views

import "slices"

// WebhookEndpointsPage lists the org's webhook endpoints for job and
// technician events, with the form that adds one (admins).
type WebhookEndpointsPage struct {
	Page
	Base      string // "/orgs/{slug}/settings/webhooks"
	Endpoints []WebhookEndpointRow
	Form      WebhookEndpointForm // the add form, as typed
	Notice    string
	Created   string // the secret of the endpoint just added
	Max       int    // endpoints an org may have
}

// Full reports whether the org has all the endpoints it may have.
func (p WebhookEndpointsPage) Full() bool { return len(p.Endpoints) >= p.Max }

// WebhookEndpointRow is one endpoint in the list.
type WebhookEndpointRow struct {
	ID          int64
	URL         string
	Description string
	Events      []string
	Failed      int // deliveries failed for good
}

// WebhookEndpointForm is the add or edit form of an endpoint.
type WebhookEndpointForm struct {
	URL, Description string
	Events           []string // chosen
	Version          int64    // edit only
	Types            []string // every event type, in order
	DescriptionLen   int
	URLError         string
	DescriptionError string
	EventsError      string
}

// Wants reports whether the form has typ ticked.
func (f WebhookEndpointForm) Wants(typ string) bool { return slices.Contains(f.Events, typ) }

// WebhookEndpointPage is one endpoint: its form, its secret and its
// delivery log.
type WebhookEndpointPage struct {
	Page
	Base        string // "/orgs/{slug}/settings/webhooks/{id}"
	ListURL     string
	Form        WebhookEndpointForm
	Notice      string
	Secret      string // revealed or rotated
	SecretError string
	Deliveries  []WebhookDeliveryRow
	Failed      int
}

// WebhookDeliveryRow is one delivery in an endpoint's log.
type WebhookDeliveryRow struct {
	EventID  string
	Type     string
	Record   string // "job 123"
	State    string // pending, delivered, failed
	Attempts int
	When     string // the last attempt, in UTC in the reader's formats
	Code     string
	Detail   string
}
