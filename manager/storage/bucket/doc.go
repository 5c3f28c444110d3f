// Package bucket is the storage module's S3-compatible object store: where
// closed WARC files and their CDXJ indexes go when the operator runs
// `hivecrawl manager --store s3://bucket/prefix`.
//
// ParseURL reads the store URL, FromEnv adds the endpoint and credentials
// from the usual AWS variables (AWS_ENDPOINT_URL_S3 or AWS_ENDPOINT_URL,
// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN, AWS_REGION),
// and Open connects with minio-go, path-style, so any S3-compatible server
// (AWS, MinIO, Ceph, versitygw, Garage) serves.
//
// # Caveats
//
// Put confirms an upload by the object's size and ETag as the server
// reports them after the upload, and by the Content-MD5 of every part,
// which the server checks; a server that ignores Content-MD5 confirms
// only the size and ETag. Plain http is used only when the endpoint says
// http://. The bucket must exist: Open does not create it.
package bucket
