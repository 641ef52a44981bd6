from services.dealer.app import app
from shared.runtime.service import run

run(app)
