package bucket

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// Bucket is an opened object store location. It is safe for concurrent
// use.
type Bucket struct {
	c        *minio.Client
	loc      Location
	partSize uint64
}

// Open connects to the server cfg names and checks that the bucket
// exists.
func Open(ctx context.Context, cfg Config) (*Bucket, error) {
	c, err := minio.New(cfg.Endpoint, &minio.Options{
		Creds:        credentials.NewStaticV4(cfg.AccessKey, cfg.SecretKey, cfg.SessionToken),
		Secure:       cfg.Secure,
		Region:       cfg.Region,
		BucketLookup: minio.BucketLookupPath,
	})
	if err != nil {
		return nil, fmt.Errorf("open object store %s: %w", cfg.Endpoint, err)
	}
	ok, err := c.BucketExists(ctx, cfg.Bucket)
	if err != nil {
		return nil, fmt.Errorf("open %s at %s: %w", cfg.Location, cfg.Endpoint, err)
	}
	if !ok {
		return nil, fmt.Errorf("open %s at %s: bucket %w; create it first", cfg.Location, cfg.Endpoint, ErrNotFound)
	}
	return &Bucket{c: c, loc: cfg.Location, partSize: cfg.PartSize}, nil
}

// Location returns where b points.
func (b *Bucket) Location() Location { return b.loc }

// Object describes a stored object.
type Object struct {
	Key  string
	Size int64
	ETag string
}

// Put uploads the file at path as object name under b's prefix and
// returns once the server has confirmed it: every part is sent with its
// Content-MD5, which the server checks, and the object's size and ETag as
// the server reports them afterwards must be those of the upload. An
// object already there under that name is replaced.
func (b *Bucket) Put(ctx context.Context, name, path, contentType string) (Object, error) {
	key := b.loc.Key(name)
	fi, err := os.Stat(path)
	if err != nil {
		return Object{}, fmt.Errorf("upload %s: %w", name, err)
	}
	info, err := b.c.FPutObject(ctx, b.loc.Bucket, key, path, minio.PutObjectOptions{
		ContentType: contentType, SendContentMd5: true, PartSize: b.partSize,
	})
	if err != nil {
		return Object{}, fmt.Errorf("upload %s to %s: %w", name, b.loc, err)
	}
	st, err := b.c.StatObject(ctx, b.loc.Bucket, key, minio.StatObjectOptions{})
	if err != nil {
		return Object{}, fmt.Errorf("confirm upload of %s: %w", name, b.notFound(err))
	}
	got := Object{Key: key, Size: st.Size, ETag: trimETag(st.ETag)}
	if got.Size != fi.Size() || info.ETag != "" && got.ETag != trimETag(info.ETag) {
		return got, fmt.Errorf("upload %s: %w: %d bytes with ETag %s stored, %d bytes with ETag %s sent",
			name, ErrNotConfirmed, got.Size, got.ETag, fi.Size(), trimETag(info.ETag))
	}
	return got, nil
}

// OpenAt returns object name from byte off to its end. Close it when
// done; closing before the end drops the connection.
func (b *Bucket) OpenAt(ctx context.Context, name string, off int64) (io.ReadCloser, error) {
	if off < 0 {
		return nil, fmt.Errorf("read %s at %d: negative offset", name, off)
	}
	var opts minio.GetObjectOptions
	if off > 0 {
		if err := opts.SetRange(off, 0); err != nil {
			return nil, fmt.Errorf("read %s at %d: %w", name, off, err)
		}
	}
	rc, _, _, err := minio.Core{Client: b.c}.GetObject(ctx, b.loc.Bucket, b.loc.Key(name), opts)
	if err != nil {
		return nil, fmt.Errorf("read %s at %d: %w", name, off, b.notFound(err))
	}
	return rc, nil
}

// Stat returns object name's size and ETag; ErrNotFound when it is not
// there.
func (b *Bucket) Stat(ctx context.Context, name string) (Object, error) {
	key := b.loc.Key(name)
	st, err := b.c.StatObject(ctx, b.loc.Bucket, key, minio.StatObjectOptions{})
	if err != nil {
		return Object{}, fmt.Errorf("stat %s: %w", name, b.notFound(err))
	}
	return Object{Key: key, Size: st.Size, ETag: trimETag(st.ETag)}, nil
}

// notFound wraps ErrNotFound into err when the server said the key or
// bucket does not exist.
func (b *Bucket) notFound(err error) error {
	switch minio.ToErrorResponse(err).Code {
	case minio.NoSuchKey, minio.NoSuchBucket:
		return errors.Join(ErrNotFound, err)
	}
	return err
}

func trimETag(s string) string { return strings.Trim(s, `"`) }
