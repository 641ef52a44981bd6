from services.adjudicator.app import app
from shared.runtime.service import run

run(app)
