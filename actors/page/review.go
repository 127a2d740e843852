package page

// Open reads everything the review page shows of the page at once (the page, its
// comments and its files) under the page's access policy for the viewer: one
// message, one consistent snapshot. A draft does not exist for anyone but its
// owner (404). A revoked page, and an authenticated page the viewer may not read,
// answer with what the page may say about itself (Gone, Gate) and nothing of the
// content.
type Open struct{ Viewer }

// Opened answers Open. With Gone or Gate set, Comments and Files are empty and the
// page's content must not be shown.
type Opened struct {
	Page     *Page
	Comments []*Comment
	Files    []*File
	Gone     bool // revoked
	Gate     bool // authenticated: the viewer must prove an allowed identity first
	// Seen is the content version a signed-in viewer last saw (seen.go); 0 for
	// anyone else, or when none is on record.
	Seen int
}

func (m *Open) public() {}

func (m *Open) run(a *Actor) any {
	if err := a.visible(m.Viewer); err != nil {
		switch {
		case a.page.Status == Revoked:
			return &Opened{Page: a.page, Gone: true}
		case a.page.Status != Draft && a.page.Access.Mode == "authenticated":
			return &Opened{Page: a.page, Gate: true}
		}
		return err
	}
	res := a.listComments(&ListComments{Viewer: m.Viewer, Limit: MaxComments})
	cs, ok := res.(*CommentResult)
	if !ok {
		return res
	}
	res = a.listFiles(&ListFiles{Viewer: m.Viewer})
	fs, ok := res.(*FileResult)
	if !ok {
		return res
	}
	return &Opened{Page: a.page, Comments: cs.Comments, Files: fs.Files, Seen: a.seenBy(m.Person)}
}

// Admits asks whether the page would let the viewer in (a sign-in link is mailed
// only to someone it admits). It answers *Admitted, or the refusal visible would
// give.
type Admits struct{ Viewer }

// Admitted answers Admits: the page's title, for the sign-in e-mail.
type Admitted struct{ Title string }

func (m *Admits) public() {}

func (m *Admits) run(a *Actor) any {
	if err := a.visible(m.Viewer); err != nil {
		return err
	}
	return &Admitted{Title: a.page.Title}
}
