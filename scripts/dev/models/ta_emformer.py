"""ta_emformer: torchaudio.models.Emformer, tiny (input_dim 32, 4 heads, ffn 64, 2 layers, segment 4, right context 1); returns the output frames (lengths dropped)."""
import torch
import torchaudio


class Wrap(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.m = torchaudio.models.Emformer(input_dim=32, num_heads=4, ffn_dim=64, num_layers=2, segment_length=4,
                                            right_context_length=1)

    def forward(self, x, lengths):
        return self.m(x, lengths)[0]


def make_model():
    torch.manual_seed(0)
    return Wrap().eval()


def example_inputs():
    g = torch.Generator().manual_seed(1)
    return (torch.randn(2, 9, 32, generator=g), torch.tensor([9, 9]))
