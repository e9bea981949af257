"""ta_conformer: torchaudio.models.Conformer, tiny (input_dim 32, 2 heads, ffn 64, 2 layers, kernel 7); returns the output frames.

Conformer.forward makes its padding mask with int(lengths.max()), which torch.export (strict=False) cannot
capture (torch.onnx gets past it with draft_export); the wrapper builds the same mask from the static
frame count and runs the conformer layers the way Conformer.forward does."""
import torch
import torchaudio


class Wrap(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.m = torchaudio.models.Conformer(input_dim=32, num_heads=2, ffn_dim=64, num_layers=2,
                                             depthwise_conv_kernel_size=7)

    def forward(self, x, lengths):
        mask = torch.arange(x.shape[1]).expand(x.shape[0], x.shape[1]) >= lengths.unsqueeze(1)
        x = x.transpose(0, 1)
        for layer in self.m.conformer_layers:
            x = layer(x, mask)
        return x.transpose(0, 1)


def make_model():
    torch.manual_seed(0)
    return Wrap().eval()


def example_inputs():
    g = torch.Generator().manual_seed(1)
    return (torch.randn(2, 10, 32, generator=g), torch.tensor([10, 7]))
