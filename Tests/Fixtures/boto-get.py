# python3 boto-get.py ENDPOINT BUCKET KEY: reads an archive with boto3 and prints what it holds as JSON
# (Tests/SaveVaultTests/EndToEnd/CloudEndToEndTests.swift).
import calendar, datetime, io, json, sys, tarfile, boto3
endpoint, bucket, key = sys.argv[1:4]
s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")
obj = s3.get_object(Bucket=bucket, Key=key)
data = obj["Body"].read()
meta = {k.lower(): v for k, v in obj.get("Metadata", {}).items()}
with tarfile.open(fileobj=io.BytesIO(data), mode="r:") as t:
    names = t.getnames()
    files = {m.name: t.extractfile(m).read().decode("utf-8", "replace") for m in t.getmembers() if m.isfile()}
stamp = key.rsplit("/", 1)[1][len("packsave-"):].split("-")[0]
when = datetime.datetime.strptime(stamp, "%Y%m%dT%H%M%S.%fZ")
ms = calendar.timegm(when.timetuple()) * 1000 + when.microsecond // 1000
print(json.dumps({"names": names, "files": files, "meta": meta, "nameMs": ms, "size": len(data)}))
