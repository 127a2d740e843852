package apitypes

import "time"

// Link is a page's address for a person: the one declaration of pageUrl, embedded
// wherever an answer gives it.
type Link struct {
	PageURL string `json:"pageUrl"`
}

// PublishResult is a page made active by publishing (POST /v1/publish, and from a
// template, A2UI or AG-UI). Warnings are advisory: the page was published; never
// null.
type PublishResult struct {
	PageID string `json:"pageId"`
	Link
	ShortURL    string    `json:"shortUrl"`
	Status      string    `json:"status"`
	CreatedAt   time.Time `json:"createdAt"`
	PublishedAt NullTime  `json:"publishedAt"`
	ExpiresAt   NullTime  `json:"expiresAt"`
	Warnings    []string  `json:"warnings"`
}

// DraftCreated is a new draft (POST /v1/pages).
type DraftCreated struct {
	PageID    string    `json:"pageId"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"createdAt"`
	Warnings  []string  `json:"warnings"`
}

// DraftPublished is a draft made active (POST /v1/pages/:id/publish).
type DraftPublished struct {
	PageID string `json:"pageId"`
	Link
	ShortURL    string   `json:"shortUrl"`
	Status      string   `json:"status"`
	PublishedAt NullTime `json:"publishedAt"`
	ExpiresAt   NullTime `json:"expiresAt"`
	Warnings    []string `json:"warnings"`
}

// Revoked is a page withdrawn (POST /v1/pages/:id/revoke).
type Revoked struct {
	PageID    string   `json:"pageId"`
	Status    string   `json:"status"`
	RevokedAt NullTime `json:"revokedAt"`
}

// Renewed is a page made active again, or extended (POST /v1/pages/:id/renew).
type Renewed struct {
	PageID    string   `json:"pageId"`
	Status    string   `json:"status"`
	ExpiresAt NullTime `json:"expiresAt"`
}
