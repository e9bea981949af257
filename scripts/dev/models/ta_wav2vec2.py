"""ta_wav2vec2: torchaudio.models.wav2vec2_model, tiny (2 conv layers of 16, embed 32, 2 layers, 4 heads, 8 output classes); returns the emissions."""
import torch
import torchaudio


class Wrap(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.m = torchaudio.models.wav2vec2_model(
            extractor_mode="group_norm", extractor_conv_layer_config=[(16, 10, 5), (16, 3, 2)], extractor_conv_bias=False,
            encoder_embed_dim=32, encoder_projection_dropout=0.0, encoder_pos_conv_kernel=16, encoder_pos_conv_groups=4,
            encoder_num_layers=2, encoder_num_heads=4, encoder_attention_dropout=0.0, encoder_ff_interm_features=64,
            encoder_ff_interm_dropout=0.0, encoder_dropout=0.0, encoder_layer_norm_first=False, encoder_layer_drop=0.0,
            aux_num_out=8)

    def forward(self, waveforms):
        return self.m(waveforms)[0]


def make_model():
    torch.manual_seed(0)
    return Wrap().eval()


def example_inputs():
    g = torch.Generator().manual_seed(1)
    return (torch.randn(2, 400, generator=g),)
