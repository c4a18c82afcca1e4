package demo

// Password is every demo user's password; `make run` prints it.
const Password = "demo-password-1"

// StaffEmail is the platform staff account.
const StaffEmail = "staff@fieldbrief.test"

type orgSpec struct {
	slug, name string
	locale     string   // what its people read (set when the org is created)
	zone, at   string   // the briefing schedule: IANA zone and local HH:MM
	days       []string // nil: every day
	dispatch   string   // the address the whole briefing is mailed to
	dial       string   // customers' phone numbers: a format with one %02d, the customer's index
	techs      []technician
	customers  []customer
}

type technician struct{ name, phone, email, language string } // language "": the org's

type customer struct{ name, address string }

// orgs are three tenants whose local days start hours apart, so a single
// `make run` shows briefings firing at different UTC instants.
var demoOrgs = []orgSpec{
	{
		slug: "northwind", name: "Northwind Heating & Air", locale: "en-US",
		zone: "America/New_York", at: "07:30", days: []string{"mon", "tue", "wed", "thu", "fri"},
		dispatch: "dispatch@northwind.test", dial: "(718) 555-01%02d",
		techs: []technician{
			{"Maria Lopez", "+1 718 555 0142", "maria.lopez@northwind.test", "es"}, // reads Spanish in an en-US org
			{"James Carter", "+1 718 555 0187", "james.carter@northwind.test", ""},
			{"Aisha Khan", "+1 347 555 0113", "aisha.khan@northwind.test", ""},
			{"Tom Becker", "+1 917 555 0166", "tom.becker@northwind.test", ""},
		},
		customers: []customer{
			{"Brooklyn Bagel Co.", "214 Court St, Brooklyn, NY 11201"},
			{"Harriet Owens", "57 Prospect Park W, Brooklyn, NY 11215"},
			{"Astoria Dental Group", "31-14 Broadway, Astoria, NY 11106"},
			{"Greenpoint Lofts HOA", "98 Franklin St, Brooklyn, NY 11222"},
			{"Luis Romero", "4512 5th Ave, Brooklyn, NY 11220"},
			{"Queens Public Library – Jackson Hts", "35-51 81st St, Jackson Heights, NY 11372"},
			{"Chen Family", "142-20 Franklin Ave, Flushing, NY 11355"},
			{"Park Slope Food Coop", "782 Union St, Brooklyn, NY 11215"},
			{"Riverside Laundromat", "3021 Broadway, New York, NY 10027"},
			{"Dr. Nkechi Adeyemi", "210 W 107th St, New York, NY 10025"},
			{"Hoboken Bike Works", "700 Washington St, Hoboken, NJ 07030"},
		},
	},
	{
		slug: "bergmann", name: "Bergmann Haustechnik GmbH", locale: "de-DE",
		zone: "Europe/Berlin", at: "06:45", days: []string{"mon", "tue", "wed", "thu", "fri", "sat"},
		dispatch: "dispatch@bergmann.test", dial: "030 5550 23%02d",
		techs: []technician{
			{"Jonas Weber", "+49 30 5550 1201", "jonas.weber@bergmann.test", ""},
			{"Lena Schmidt", "+49 30 5550 1202", "lena.schmidt@bergmann.test", ""},
			{"Mehmet Yılmaz", "+49 30 5550 1203", "mehmet.yilmaz@bergmann.test", ""},
			{"Katrin Vogel", "+49 30 5550 1204", "katrin.vogel@bergmann.test", ""},
			{"Paul Neumann", "+49 30 5550 1205", "paul.neumann@bergmann.test", ""},
		},
		customers: []customer{
			{"Bäckerei Krause", "Oranienstraße 34, 10999 Berlin"},
			{"Hausverwaltung Lindner", "Kastanienallee 12, 10435 Berlin"},
			{"Praxis Dr. Özdemir", "Karl-Marx-Straße 101, 12043 Berlin"},
			{"Familie Hoffmann", "Bölschestraße 58, 12587 Berlin"},
			{"Café Einstein Stammhaus", "Kurfürstenstraße 58, 10785 Berlin"},
			{"Kita Sonnenblume", "Wühlischstraße 29, 10245 Berlin"},
			{"Wohnungsbau Spree eG", "Stralauer Allee 7, 10245 Berlin"},
			{"Anna Richter", "Schönhauser Allee 150, 10435 Berlin"},
			{"Hotel am Gendarmenmarkt", "Charlottenstraße 60, 10117 Berlin"},
			{"Zahnarztpraxis Wolff", "Schloßstraße 4, 12163 Berlin"},
			{"Turnverein Pankow", "Breite Straße 22, 13187 Berlin"},
		},
	},
	{
		slug: "kiwi-pipes", name: "Kiwi Pipes & Drains", locale: "en-NZ",
		zone: "Pacific/Auckland", at: "07:00", // every day: drains block on Sundays too
		dispatch: "dispatch@kiwi-pipes.test", dial: "+64 9 555 03%02d",
		techs: []technician{
			{"Aroha Ngata", "+64 21 555 0171", "aroha.ngata@kiwi-pipes.test", ""},
			{"Liam Walker", "+64 21 555 0172", "liam.walker@kiwi-pipes.test", ""},
			{"Priya Patel", "+64 21 555 0173", "priya.patel@kiwi-pipes.test", ""},
		},
		customers: []customer{
			{"Ponsonby Road Bistro", "182 Ponsonby Rd, Ponsonby, Auckland 1011"},
			{"Mere Tāwhai", "14 Kiwi Tamaki Rd, Northcote, Auckland 0627"},
			{"Devonport Primary School", "25 Kerr St, Devonport, Auckland 0624"},
			{"Grey Lynn Community Hall", "510 Richmond Rd, Grey Lynn, Auckland 1021"},
			{"Sione Fifita", "33 Great South Rd, Ōtāhuhu, Auckland 1062"},
			{"Mt Eden Motor Lodge", "456 Dominion Rd, Mt Eden, Auckland 1041"},
			{"Harbourside Apartments", "1 Quay St, Auckland CBD 1010"},
			{"Takapuna Surf Club", "Takapuna Beach, The Strand, Auckland 0622"},
			{"Emma & Josh Reid", "9 Arthur St, Freemans Bay, Auckland 1011"},
			{"Henderson Vet Clinic", "66 Great North Rd, Henderson, Auckland 0612"},
		},
	},
}

// task is what a job is about: its type and the dispatcher's note.
type task struct{ kind, note string }

// tasks are cycled through so every day reads differently.
var tasks = []task{
	{"Maintenance", "Annual service"},
	{"Repair", "No hot water"},
	{"Repair", "Leak under the kitchen sink"},
	{"Installation", "Thermostat replacement"},
	{"Maintenance", "Radiator bleeding, two rooms"},
	{"Drain clearing", "Blocked drain"},
	{"Repair", "Boiler pressure keeps dropping"},
	{"Quote", "Quote for a new heat pump"},
	{"Inspection", "Noisy pipes at night"},
	{"Inspection", "Safety inspection before tenancy"},
	{"Follow-up", "Follow-up on last week's repair"},
}

// people are the demo's sign-ins. Every org gets an admin (admin@<slug>.test);
// the consultant belongs to two orgs so the org switcher shows.
type person struct {
	email string
	staff bool
	roles []membership
}

type membership struct{ slug, role string }

func people() []person {
	ps := []person{{email: StaffEmail, staff: true}}
	for _, o := range demoOrgs {
		ps = append(ps, person{email: "admin@" + o.slug + ".test", roles: []membership{{o.slug, "admin"}}})
	}
	return append(ps,
		person{email: "member@northwind.test", roles: []membership{{"northwind", "member"}}},
		person{email: "consultant@fieldbrief.test", roles: []membership{{"bergmann", "admin"}, {"kiwi-pipes", "member"}}},
	)
}
