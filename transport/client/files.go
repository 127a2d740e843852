package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"folio/transport/apitypes"
)

// File is a file attached to a page.
type File struct {
	ID         string    `json:"id"`
	PageID     string    `json:"pageId"`
	Filename   string    `json:"filename"`
	MimeType   string    `json:"mimeType"`
	SizeBytes  int64     `json:"sizeBytes"`
	StorageKey string    `json:"storageKey"`
	UploadedBy string    `json:"uploadedBy"`
	UploadType string    `json:"uploadType"` // agent or user
	CreatedAt  time.Time `json:"createdAt"`
}

// FileEntry is a file as a page's file listing shows it.
type FileEntry struct {
	ID         string    `json:"id"`
	Filename   string    `json:"filename"`
	MimeType   string    `json:"mimeType"`
	SizeBytes  int64     `json:"sizeBytes"`
	UploadedBy string    `json:"uploadedBy"`
	CreatedAt  time.Time `json:"createdAt"`
}

// FileList is a page's files.
type FileList = apitypes.FileList[FileEntry]

// presignRequest, presigned, uploaded and completeRequest are the three steps of an
// upload (docs/spec.md 4.6), which Upload hides.
type presignRequest struct {
	Filename   string `json:"filename"`
	MimeType   string `json:"mime_type,omitempty"`
	SizeBytes  int64  `json:"size_bytes"`
	UploadedBy string `json:"uploaded_by,omitempty"`
}

type presigned = apitypes.FilePresigned

type uploaded = apitypes.FileUploaded

type completeRequest struct {
	StorageKey string `json:"storage_key"`
}

// Upload attaches a file to a page in the three steps of the API: presign, PUT the
// size bytes read from r to the signed address, complete. mimeType and uploadedBy
// may be empty. r must yield exactly size bytes: the server refuses any other
// length (400). A failure after the presign leaves no file (the server sweeps bytes
// never completed).
func (c *Client) Upload(ctx context.Context, pageID, filename, mimeType string, r io.Reader, size int64, uploadedBy string) (*File, error) {
	p, err := call[presigned](ctx, c, "POST", "/v1/pages/"+esc(pageID)+"/files/presign",
		presignRequest{Filename: filename, MimeType: mimeType, SizeBytes: size, UploadedBy: uploadedBy})
	if err != nil {
		return nil, err
	}
	if r == nil {
		r = http.NoBody
	}
	req, err := http.NewRequestWithContext(ctx, "PUT", c.resolve(p.UploadURL), io.NopCloser(r))
	if err != nil {
		return nil, err
	}
	// The signed address is the credential: the key is not sent with the bytes.
	req.ContentLength = size
	if size == 0 {
		req.Body = http.NoBody
	}
	req.Header.Set("Content-Type", "application/octet-stream")
	req.Header.Set("User-Agent", c.userAgent)
	var up uploaded
	if err := c.send(req, &up); err != nil {
		return nil, err
	}
	if up.SizeBytes != size {
		return nil, fmt.Errorf("client: the server stored %d bytes of %s, want %d", up.SizeBytes, filename, size)
	}
	return call[File](ctx, c, "POST", "/v1/pages/"+esc(pageID)+"/files/complete", completeRequest{StorageKey: p.StorageKey})
}

// ListFiles lists a page's files (GET /v1/pages/:id/files).
func (c *Client) ListFiles(ctx context.Context, pageID string) (*FileList, error) {
	return call[FileList](ctx, c, "GET", "/v1/pages/"+esc(pageID)+"/files", nil)
}

// DownloadURL is a signed address serving a file's bytes, valid for a few minutes
// and checked against the page's access when used (GET
// /v1/pages/:id/files/:fileId/download, whose redirect it returns unfollowed).
func (c *Client) DownloadURL(ctx context.Context, pageID, fileID string) (string, error) {
	req, err := c.newRequest(ctx, "GET", "/v1/pages/"+esc(pageID)+"/files/"+esc(fileID)+"/download", nil)
	if err != nil {
		return "", err
	}
	c.authorize(req)
	hc := *c.hc
	hc.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	res, err := hc.Do(req)
	if err != nil {
		return "", err
	}
	defer res.Body.Close()
	if res.StatusCode != http.StatusFound {
		if res.StatusCode >= 200 && res.StatusCode < 400 {
			return "", fmt.Errorf("client: download answered %d, want a 302 redirect", res.StatusCode)
		}
		return "", errorOf(res)
	}
	loc := res.Header.Get("Location")
	if loc == "" {
		return "", errors.New("client: download redirect without Location")
	}
	return c.resolve(loc), nil
}

// Download opens a file's bytes: DownloadURL, then a GET of that address. The
// caller closes the reader.
func (c *Client) Download(ctx context.Context, pageID, fileID string) (io.ReadCloser, error) {
	addr, err := c.DownloadURL(ctx, pageID, fileID)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, "GET", addr, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", c.userAgent)
	res, err := c.hc.Do(req)
	if err != nil {
		return nil, err
	}
	if res.StatusCode != http.StatusOK {
		defer res.Body.Close()
		return nil, errorOf(res)
	}
	return res.Body, nil
}
