from shared.runtime.startup import refuse_unsafe

refuse_unsafe("adjudicator")  # before anything connects: placeholder secrets, plaintext (exit 78)

from services.adjudicator.app import create_app  # noqa: E402
from shared.runtime.service import run  # noqa: E402

run(create_app())
