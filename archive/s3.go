package archive

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	awsconfig "github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	s3types "github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
)

// S3Config names an archive in an S3-compatible bucket.
type S3Config struct {
	// Bucket holds the archive. Required.
	Bucket string
	// Prefix is the folder of the archive in the bucket ("" for its root), without slashes at
	// either end.
	Prefix string
	// Endpoint is the base URL of an S3-compatible server (MinIO, a test server...); empty for
	// AWS. Setting it switches to path-style addressing, which such servers expect.
	Endpoint string
	// Region is the bucket's region; empty takes the AWS environment's, then us-east-1 when an
	// Endpoint is set (S3-compatible servers mostly ignore it).
	Region string
	// Credentials, when set, replace the standard AWS chain (tests give static ones).
	Credentials aws.CredentialsProvider
}

// Validate reports a configuration that cannot name an archive.
func (c S3Config) Validate() error {
	if c.Bucket == "" {
		return errors.New("archive S3: Bucket is empty")
	}
	if strings.HasPrefix(c.Prefix, "/") || strings.HasSuffix(c.Prefix, "/") {
		return fmt.Errorf("archive S3: Prefix %q has a slash at an end", c.Prefix)
	}
	return nil
}

// S3 is a Store in an S3-compatible bucket: each file is an object under the prefix. A PUT is
// atomic and durable when it returns, so no temporary objects are needed.
type S3 struct {
	client *s3.Client
	bucket string
	prefix string // "" or ending with "/"
}

// NewS3 builds the S3 client cfg says, with credentials from cfg or the standard AWS chain.
func NewS3(ctx context.Context, cfg S3Config) (*S3, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	var opts []func(*awsconfig.LoadOptions) error
	if cfg.Region != "" {
		opts = append(opts, awsconfig.WithRegion(cfg.Region))
	}
	if cfg.Credentials != nil {
		opts = append(opts, awsconfig.WithCredentialsProvider(cfg.Credentials))
	}
	ac, err := awsconfig.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("archive S3: load the AWS configuration: %w", err)
	}
	if ac.Region == "" {
		if cfg.Endpoint == "" {
			return nil, errors.New("archive S3: no region: set region= in the URL or AWS_REGION")
		}
		ac.Region = "us-east-1"
	}
	client := s3.NewFromConfig(ac, func(o *s3.Options) {
		if cfg.Endpoint != "" {
			o.BaseEndpoint = aws.String(cfg.Endpoint)
			o.UsePathStyle = true
			// S3-compatible servers often lack the SDK's default trailing CRC checksums; the
			// archive checks every file's SHA-256 itself.
			o.RequestChecksumCalculation = aws.RequestChecksumCalculationWhenRequired
			o.ResponseChecksumValidation = aws.ResponseChecksumValidationWhenRequired
		}
	})
	s := &S3{client: client, bucket: cfg.Bucket}
	if cfg.Prefix != "" {
		s.prefix = cfg.Prefix + "/"
	}
	return s, nil
}

func (s *S3) String() string { return "s3://" + s.bucket + "/" + s.prefix }

func (s *S3) key(name string) (string, error) {
	if name == "" || strings.Contains(name, "/") {
		return "", fmt.Errorf("archive file name %q: want a plain name", name)
	}
	return s.prefix + name, nil
}

// Get downloads the object name.
func (s *S3) Get(ctx context.Context, name string) ([]byte, error) {
	key, err := s.key(name)
	if err != nil {
		return nil, err
	}
	out, err := s.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &s.bucket, Key: &key})
	if err != nil {
		var nsk *s3types.NoSuchKey
		var api smithy.APIError
		if errors.As(err, &nsk) || (errors.As(err, &api) && (api.ErrorCode() == "NoSuchKey" || api.ErrorCode() == "NotFound")) {
			return nil, fmt.Errorf("%s%s: %w", s, name, ErrNotFound)
		}
		return nil, fmt.Errorf("get %s%s: %w", s, name, err)
	}
	defer out.Body.Close()
	b, err := io.ReadAll(out.Body)
	if err != nil {
		return nil, fmt.Errorf("get %s%s: %w", s, name, err)
	}
	return b, nil
}

// Put uploads data as the object name in one PUT.
func (s *S3) Put(ctx context.Context, name string, data []byte) error {
	key, err := s.key(name)
	if err != nil {
		return err
	}
	_, err = s.client.PutObject(ctx, &s3.PutObjectInput{
		Bucket:        &s.bucket,
		Key:           &key,
		Body:          bytes.NewReader(data),
		ContentLength: aws.Int64(int64(len(data))),
	})
	if err != nil {
		return fmt.Errorf("put %s%s: %w", s, name, err)
	}
	return nil
}

// Delete removes the object name.
func (s *S3) Delete(ctx context.Context, name string) error {
	key, err := s.key(name)
	if err != nil {
		return err
	}
	if _, err := s.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &s.bucket, Key: &key}); err != nil {
		return fmt.Errorf("delete %s%s: %w", s, name, err)
	}
	return nil
}

// List returns the names of the objects directly under the prefix.
func (s *S3) List(ctx context.Context) ([]string, error) {
	var names []string
	p := s3.NewListObjectsV2Paginator(s.client, &s3.ListObjectsV2Input{
		Bucket: &s.bucket,
		Prefix: aws.String(s.prefix),
	})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("list %s: %w", s, err)
		}
		for _, o := range page.Contents {
			name := strings.TrimPrefix(aws.ToString(o.Key), s.prefix)
			if name != "" && !strings.Contains(name, "/") {
				names = append(names, name)
			}
		}
	}
	sort.Strings(names)
	return names, nil
}
