// Package delivery delivers a briefing's revision to the people and systems
// that receive it (docs/delivery.md): it picks the recipients (dispatchers,
// technicians with work that day, the webhook) when a scheduled generation
// succeeds, queues one delivery task each in that transaction, and runs
// those tasks — an email built by views/mail and sent by internal/transport,
// or a signed webhook call — recording every attempt. Admins re-send failed
// deliveries and send tests to themselves through its Store.
package delivery
