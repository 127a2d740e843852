package page

// AuthSlack is the auth_method of a person who decided with a button in a Slack
// message (actors/slack): Slack signed the click, and users.info, asked with the
// page tenant's bot token, gave the address recorded as actor.identity. It proves
// the person as the tenant's Slack workspace knows them: it decides approval steps
// like a signed-in person, but not on require_verified pages, whose steps need the
// person to sign in to Folio (the tenant holds the workspace's signing secret).
const AuthSlack = "slack"
