// Code generated from npm cldr-dates-full@48.2.0 (main/*/timeZoneNames.json, each metazone's "short" names,
// with CLDR's parent locales: es-US and es-MX inherit es-419 and es); DO NOT EDIT.
// Unicode CLDR data, Unicode License v3: see NOTICE.

package locale

// shortMetazones are the short metazone names (standard, daylight) each
// non-English locale writes (English keeps the tz database's: ZoneAbbr).
var shortMetazones = map[string]map[string][2]string{
	"de-DE": {"Europe_Central": {"MEZ", "MESZ"}, "Europe_Eastern": {"OEZ", "OESZ"}, "Europe_Western": {"WEZ", "WESZ"}},
	"de-AT": {"Europe_Central": {"MEZ", "MESZ"}, "Europe_Eastern": {"OEZ", "OESZ"}, "Europe_Western": {"WEZ", "WESZ"}},
	"de-CH": {"Europe_Central": {"MEZ", "MESZ"}, "Europe_Eastern": {"OEZ", "OESZ"}, "Europe_Western": {"WEZ", "WESZ"}},
	"es-ES": {"Europe_Central": {"CET", "CEST"}, "Europe_Eastern": {"EET", "EEST"}, "Europe_Western": {"WET", "WEST"}, "GMT": {"GMT", ""}},
	"es-US": {"Alaska": {"AKST", "AKDT"}, "America_Central": {"CST", "CDT"}, "America_Eastern": {"EST", "EDT"}, "America_Mountain": {"MST", "MDT"}, "America_Pacific": {"PST", "PDT"}, "Atlantic": {"AST", "ADT"}, "Europe_Central": {"CET", "CEST"}, "Europe_Eastern": {"EET", "EEST"}, "Europe_Western": {"WET", "WEST"}, "GMT": {"GMT", ""}, "Hawaii": {"HST", ""}, "Hawaii_Aleutian": {"HAST", "HADT"}},
	"es-MX": {"Europe_Central": {"CET", "CEST"}, "Europe_Eastern": {"EET", "EEST"}, "Europe_Western": {"WET", "WEST"}, "GMT": {"GMT", ""}},
	"fr-FR": {},
	"fr-CA": {"America_Central": {"HNC", "HAC"}, "America_Eastern": {"HNE", "HAE"}, "America_Mountain": {"HNR", "HAR"}, "America_Pacific": {"HNP", "HAP"}, "Atlantic": {"HNA", "HAA"}, "Newfoundland": {"HNT", "HAT"}, "Pierre_Miquelon": {"HNPM", "HAPM"}},
	"fr-BE": {},
	"fr-CH": {},
}
