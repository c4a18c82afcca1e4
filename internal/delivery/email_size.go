package delivery

import (
	"bytes"
	"context"
	"fmt"

	"fieldbrief/internal/snapshot"
	"fieldbrief/internal/transport"
	"fieldbrief/views/mail"
)

// MaxEmailBytes bounds every email delivery sends as the SMTP server
// receives it, headers and encoded parts included: the briefing's, a
// dispatcher's or a technician's (fitEmail), and a technician's update
// (updateMessage) (docs/guarantees.md, "Bounds").
const MaxEmailBytes = snapshot.MaxBytes

// emailShortening are the smaller bounds fitEmail tries, in turn, on an
// email over MaxEmailBytes: {jobs of a section, jobs of a route}. Past the
// last, the routes go and the email is the summary, the action items'
// counts and the link to the briefing.
var emailShortening = [][2]int{{25, 25}, {10, 10}, {5, 5}, {2, 2}, {0, 0}}

// fitEmail renders m and frames it as the message to send; when the message
// is over MaxEmailBytes it renders m again with shorter lists, saying so
// at the top ("shortened to stay under 1 MB"), until it fits. It never
// returns a message over MaxEmailBytes.
func fitEmail(ctx context.Context, m mail.BriefingEmail, frame func(text, html string) transport.Message) (transport.Message, error) {
	for level := 0; ; level++ {
		var html bytes.Buffer
		if err := mail.HTML(m).Render(ctx, &html); err != nil {
			return transport.Message{}, fmt.Errorf("render email: %w", err)
		}
		msg := frame(mail.Text(m), html.String())
		size, err := transport.Size(msg)
		if err != nil {
			return transport.Message{}, err
		}
		if size <= MaxEmailBytes {
			return msg, nil
		}
		m.Shortened = true
		switch {
		case level < len(emailShortening):
			m = shortenEmail(m, emailShortening[level][0], emailShortening[level][1])
		case len(m.Routes) > 0:
			m.Routes = nil
		default:
			return transport.Message{}, &transport.Error{Permanent: true,
				Detail: fmt.Sprintf("the email is %d bytes with every list empty, over the %d-byte bound", size, MaxEmailBytes)}
		}
	}
}

// shortenEmail cuts every action item section and the cancelled jobs to at
// most list jobs and every route to at most route; each list counts what
// it leaves out. A technician's own lists are cut the same way (their
// email says it was shortened, above their day link). m's slices are not
// changed.
func shortenEmail(m mail.BriefingEmail, list, route int) mail.BriefingEmail {
	cut := func(jobs []mail.Job, n int, more *int) []mail.Job {
		if len(jobs) <= n {
			return jobs
		}
		*more += len(jobs) - n
		return jobs[:n:n]
	}
	a := &m.ActionItems
	a.Emergencies = cut(a.Emergencies, list, &a.MoreEmergencies)
	a.Overdue = cut(a.Overdue, list, &a.MoreOverdue)
	a.Unassigned = cut(a.Unassigned, list, &a.MoreUnassigned)
	a.OnHold = cut(a.OnHold, list, &a.MoreOnHold)
	m.Cancelled = cut(m.Cancelled, list, &m.MoreCancelled)
	routes := make([]mail.Route, len(m.Routes))
	for i, r := range m.Routes {
		r.Jobs = cut(r.Jobs, route, &r.More)
		routes[i] = r
	}
	m.Routes = routes
	// A technician's own day: each list counts what it leaves out, and
	// their day link has the rest.
	o := &m.Own
	o.Jobs = cut(o.Jobs, route, &o.MoreJobs)
	o.Overdue = cut(o.Overdue, list, &o.MoreOverdue)
	o.Cancelled = cut(o.Cancelled, list, &o.MoreCancelled)
	return m
}
