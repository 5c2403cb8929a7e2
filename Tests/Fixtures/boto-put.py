# python3 boto-put.py ENDPOINT BUCKET KEY PATH: puts a file with boto3
# (Tests/SaveVaultTests/EndToEnd/CloudEndToEndTests.swift).
import sys, boto3
endpoint, bucket, key, path = sys.argv[1:5]
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")
with open(path, "rb") as f:
    s3.put_object(Bucket=bucket, Key=key, Body=f.read())
