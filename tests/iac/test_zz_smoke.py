import json, pytest
from pathlib import Path
from tests.iac.iac_cli import cli
from tests.peers.iac_servers import dump_json
pytestmark = [pytest.mark.peer, pytest.mark.timeout(600)]

@pytest.mark.parametrize("carrier", ["websocket", "stdio"])
def test_smoke(carrier, request, tmp_path):
    info = request.getfixturevalue("iac_" + carrier.replace("-", "_"))
    if carrier == "stdio":
        card = cli("send", info["url"], "--binding", carrier, "--method", "GetExtendedAgentCard", "--no-history", "--command", info["command_line"]).body()["result"]
        extra = ["--command", info["command_line"]]
    else:
        card = info["card"]; extra = []
    path = dump_json(tmp_path / "card.json", card)
    run = cli("check", str(path), "--no-history", "--output", "pretty", *extra, timeout=300)
    print(run.output)
