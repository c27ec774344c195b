"""A stand-in for the instance metadata services of AWS, GCP and Azure, as far as scripts/cloud/spot_run.sh
asks them: each announces the instance's reclaim while the file NOTICE exists.

    python3 fake_cloud_metadata.py NOTICE PORT_FILE

Listens on 127.0.0.1 on a free port, which it writes to PORT_FILE once it serves.
  AWS    PUT /latest/api/token (with a TTL header) gives a token; GET /latest/meta-data/spot/instance-action
         with it answers 404, or 200 and the action's JSON; 401 without a valid token.
  GCP    GET /computeMetadata/v1/instance/preempted with "Metadata-Flavor: Google": FALSE or TRUE.
  Azure  GET /metadata/scheduledevents?api-version=... with "Metadata: true": no events, or a Preempt event.
"""
import http.server
import os
import sys

NOTICE, PORT_FILE = sys.argv[1], sys.argv[2]
TOKEN = "fake-imds-token"


class Metadata(http.server.BaseHTTPRequestHandler):
    def answer(self, code, body=""):
        data = body.encode()
        self.send_response(code)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_PUT(self):
        if self.path == "/latest/api/token" and self.headers.get("X-aws-ec2-metadata-token-ttl-seconds"):
            self.answer(200, TOKEN)
        else:
            self.answer(400)

    def do_GET(self):
        noticed = os.path.exists(NOTICE)
        if self.path == "/latest/meta-data/spot/instance-action":
            if self.headers.get("X-aws-ec2-metadata-token") != TOKEN:
                self.answer(401)
            elif noticed:
                self.answer(200, '{"action": "terminate", "time": "2026-12-06T12:00:00Z"}')
            else:
                self.answer(404)
        elif self.path == "/computeMetadata/v1/instance/preempted" and self.headers.get("Metadata-Flavor") == "Google":
            self.answer(200, "TRUE" if noticed else "FALSE")
        elif self.path.startswith("/metadata/scheduledevents?api-version=") and self.headers.get("Metadata") == "true":
            event = '{"EventId": "1", "EventType": "Preempt", "ResourceType": "VirtualMachine"}' if noticed else ""
            self.answer(200, '{"DocumentIncarnation": 1, "Events": [' + event + "]}")
        else:
            self.answer(404)

    def log_message(self, *args):
        pass


server = http.server.HTTPServer(("127.0.0.1", 0), Metadata)
with open(PORT_FILE + ".tmp", "w") as f:
    f.write(str(server.server_address[1]))
os.replace(PORT_FILE + ".tmp", PORT_FILE)
server.serve_forever()
